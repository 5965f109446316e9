package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hcbench/hcbench/datasets/datadir"
	"github.com/hcbench/hcbench/internal/english"
)

// dataCatalog is the catalog the data command works on; tests replace it.
var dataCatalog = datadir.Catalog

// dataGetenv reads the environment for the data command; tests replace it.
var dataGetenv = os.Getenv

const dataUsage = `Usage:
  hcbench data fetch [-data DIR] [-mirror URL] [SET...]
                               download the real data sets (all by default) into the data directory,
                               check their SHA-256 sums and convert them where needed; files
                               there with the right sum are kept, others replaced
  hcbench data list [-data DIR]
                               what each data set is, its licence, and whether it is present
  hcbench data verify [-data DIR] [SET...]
                               check the SHA-256 sums of the data sets present (or of those named)

The data directory is -data DIR, else $` + datadir.EnvDir + `, else hcbench/data in the user's cache
directory. Files are downloaded from ` + datadir.DefaultBase + ` at fixed commits; -mirror URL
(or $` + datadir.EnvMirror + `) fetches them from elsewhere: ` + datadir.MirrorLayout + `.
`

// cmdData is the data command: fetch, list and verify the data sets of the data directory.
func cmdData(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, dataUsage)
		return ExitUsage
	}
	switch args[0] {
	case "fetch":
		return cmdDataFetch(ctx, args[1:], stdout, stderr)
	case "list":
		return cmdDataList(args[1:], stdout, stderr)
	case "verify":
		return cmdDataVerify(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, dataUsage)
		return ExitOK
	}
	fmt.Fprintf(stderr, "hcbench data: unknown subcommand %q\n\n%s", args[0], dataUsage)
	return ExitUsage
}

// dataFlags adds -data to a data subcommand's flags.
func dataFlags(name, synopsis string, stderr io.Writer) (*flag.FlagSet, *string) {
	fs := newFlags("data "+name, stderr, "data "+synopsis)
	dir := fs.String("data", "", "the data directory (default $"+datadir.EnvDir+", else hcbench/data in the user's cache directory)")
	return fs, dir
}

// dataSets returns the sets named, or all of the catalog for none; an unknown name is an error
// that lists the known ones.
func dataSets(names []string) ([]datadir.Set, error) {
	if len(names) == 0 {
		return dataCatalog, nil
	}
	var sets []datadir.Set
	seen := map[string]bool{}
	for _, n := range names {
		found := false
		for _, s := range dataCatalog {
			if s.Name == n {
				found = true
				if !seen[n] {
					sets = append(sets, s)
					seen[n] = true
				}
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown data set %q (known: %s)", n, strings.Join(dataSetNames(), ", "))
		}
	}
	return sets, nil
}

func dataSetNames() []string {
	var names []string
	for _, s := range dataCatalog {
		names = append(names, s.Name)
	}
	return names
}

func cmdDataFetch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, dirFlag := dataFlags("fetch", "fetch [-data DIR] [-mirror URL] [SET...]", stderr)
	mirror := fs.String("mirror", "", "fetch from this base URL instead of "+datadir.DefaultBase+" (default $"+datadir.EnvMirror+"); "+datadir.MirrorLayout)
	names, err := parse(fs, args)
	if err != nil {
		return flagError(fs, err, stdout)
	}
	sets, err := dataSets(names)
	if err != nil {
		fmt.Fprintln(stderr, "hcbench data fetch:", err)
		return ExitUsage
	}
	if *mirror == "" {
		*mirror = dataGetenv(datadir.EnvMirror)
	}
	if *mirror != "" {
		if err := datadir.CheckMirror(*mirror); err != nil {
			fmt.Fprintln(stderr, "hcbench data fetch:", err)
			return ExitUsage
		}
	}
	loc, err := datadir.Locate(*dirFlag, dataGetenv)
	if err != nil {
		fmt.Fprintln(stderr, "hcbench data fetch:", err)
		return ExitFailure
	}
	fmt.Fprintf(stdout, "data directory: %s\n", loc)
	if *mirror != "" {
		fmt.Fprintf(stdout, "mirror: %s\n", *mirror)
	}
	rep, err := datadir.Fetch(ctx, loc.Path, sets, datadir.FetchOptions{Mirror: *mirror, Progress: stderr})
	if err != nil && rep == nil {
		fmt.Fprintln(stderr, "hcbench data fetch:", err)
		return ExitFailure
	}
	notInstalled := 0
	for i := range sets {
		st := datadir.Check(loc.Path, &sets[i])
		fmt.Fprintf(stdout, "%s: %s\n", sets[i].Name, st.State)
		notInstalled += len(st.Problems())
	}
	switch {
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "hcbench data fetch: interrupted; nothing half-downloaded was installed; run it again to go on")
		return ExitInterrupted
	case err != nil:
		for _, line := range strings.Split(err.Error(), "\n") {
			fmt.Fprintln(stderr, "hcbench data fetch:", line)
		}
		fmt.Fprintf(stderr, "hcbench data fetch: %s not installed\n", english.Count(notInstalled, "file", "files"))
		return ExitFailure
	}
	fmt.Fprintf(stdout, "%s installed, %d already present\n", english.Count(len(rep.Installed), "file", "files"), len(rep.Present))
	return ExitOK
}

func cmdDataList(args []string, stdout, stderr io.Writer) int {
	fs, dirFlag := dataFlags("list", "list [-data DIR]", stderr)
	rest, err := parse(fs, args)
	if err != nil {
		return flagError(fs, err, stdout)
	}
	if len(rest) != 0 {
		fs.Usage()
		return ExitUsage
	}
	loc, err := datadir.Locate(*dirFlag, dataGetenv)
	if err != nil {
		fmt.Fprintln(stderr, "hcbench data list:", err)
		return ExitFailure
	}
	fmt.Fprintf(stdout, "data directory: %s\n", loc)
	width := 0
	for _, s := range dataCatalog {
		width = max(width, len(s.Name))
	}
	for i := range dataCatalog {
		s := &dataCatalog[i]
		st := datadir.Check(loc.Path, s)
		fmt.Fprintf(stdout, "\n%-*s  %s\n", width, s.Name, st.State)
		pad := strings.Repeat(" ", width+2)
		fmt.Fprintf(stdout, "%s%s\n%slicence: %s\n", pad, s.Title, pad, s.Licence)
		if st.State == datadir.SetPartial || st.State == datadir.SetModified {
			for _, p := range st.Problems() {
				fmt.Fprintf(stdout, "%s%s\n", pad, p)
			}
		}
	}
	return ExitOK
}

func cmdDataVerify(args []string, stdout, stderr io.Writer) int {
	fs, dirFlag := dataFlags("verify", "verify [-data DIR] [SET...]", stderr)
	names, err := parse(fs, args)
	if err != nil {
		return flagError(fs, err, stdout)
	}
	sets, err := dataSets(names)
	if err != nil {
		fmt.Fprintln(stderr, "hcbench data verify:", err)
		return ExitUsage
	}
	loc, err := datadir.Locate(*dirFlag, dataGetenv)
	if err != nil {
		fmt.Fprintln(stderr, "hcbench data verify:", err)
		return ExitFailure
	}
	fmt.Fprintf(stdout, "data directory: %s\n", loc)
	problems, checked := 0, 0
	var fetch []string
	for i := range sets {
		st := datadir.Check(loc.Path, &sets[i])
		if st.State == datadir.SetMissing && len(names) == 0 {
			fmt.Fprintf(stdout, "%s: not fetched, skipped\n", sets[i].Name)
			continue
		}
		checked++
		ps := st.Problems()
		if len(ps) == 0 {
			fmt.Fprintf(stdout, "%s: ok (%s)\n", sets[i].Name, english.Count(len(sets[i].Files), "file", "files"))
			continue
		}
		for _, p := range ps {
			fmt.Fprintln(stderr, p)
		}
		problems += len(ps)
		fetch = append(fetch, sets[i].Name)
	}
	switch {
	case checked == 0:
		fmt.Fprintf(stderr, "hcbench data verify: no data set is in %s; fetch them with: hcbench data fetch\n", loc.Path)
		return ExitFailure
	case problems > 0:
		fmt.Fprintf(stderr, "hcbench data verify: %s; fetch the files again with: hcbench data fetch %s\n", english.Count(problems, "problem", "problems"), strings.Join(fetch, " "))
		return ExitFailure
	}
	return ExitOK
}
