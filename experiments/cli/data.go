package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hcbench/hcbench/datasets/datadir"
	"github.com/hcbench/hcbench/internal/english"
)

// dataCatalog is the catalog the data command works on; tests replace it.
var dataCatalog = datadir.Catalog

// dataGetenv reads the environment for the data command; tests replace it.
var dataGetenv = os.Getenv

const dataUsage = `Usage:
  hcbench data fetch [-data DIR] [-mirror DIR|URL] [SET...]
                               download the real data sets (all by default) into the data directory,
                               check their SHA-256 sums and convert them where needed; files
                               there with the right sum are kept, others replaced; the sources of
                               converted files are kept too, in SET/sources
  hcbench data list [-data DIR]
                               what each data set is, its licence, and whether it is present
  hcbench data verify [-data DIR] [SET...]
                               check the SHA-256 sums of the data sets present (or of those named);
                               each file missing or modified is named, an optional one that is
                               absent (clustbench's sipu/worms_64.data.gz) is said, not a problem
  hcbench data mirror [-data DIR] OUT [SET...]
                               copy the sources of the data sets present (or of those named) from
                               the data directory into the folder OUT, laid out as a mirror that
                               'hcbench data fetch -mirror OUT' reads on a machine without internet

The data directory is -data DIR, else $` + datadir.EnvDir + `, else hcbench/data in the user's cache
directory; a relative one is taken from the working directory. Files are downloaded from
` + datadir.DefaultBase + ` at fixed commits. Without internet, point -data at a data
directory that holds the files already, or fetch from a mirror: -mirror DIR|URL (or
$` + datadir.EnvMirror + `) reads each source file at MIRROR/OWNER/REPO/COMMIT/PATH, from a folder
(a path or a file:// URL) that 'hcbench data mirror DIR' writes, or from a web server over one.
`

// cmdData is the data command: fetch, list, verify and mirror the data sets of the data directory.
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
	case "mirror":
		return cmdDataMirror(ctx, args[1:], stdout, stderr)
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
	fs, dirFlag := dataFlags("fetch", "fetch [-data DIR] [-mirror DIR|URL] [SET...]", stderr)
	mirror := fs.String("mirror", "", "fetch from this folder, file:// or http(s):// URL instead of "+datadir.DefaultBase+" (default $"+datadir.EnvMirror+"); "+datadir.MirrorLayout)
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
		if _, _, err := datadir.CheckMirror(*mirror); err != nil {
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
		if notInstalled > 0 {
			fmt.Fprintf(stderr, "hcbench data fetch: %s not installed\n", english.Count(notInstalled, "file", "files"))
		}
		sources := 0
		for _, rel := range rep.Failed {
			if strings.Contains(rel, "/"+datadir.SourcesDir+"/") {
				sources++
			}
		}
		if sources > 0 {
			// The files made from them may all be present: the sets can be used, not mirrored.
			fmt.Fprintf(stderr, "hcbench data fetch: %s of converted files not kept, which `hcbench data mirror` needs\n",
				english.Count(sources, "source", "sources"))
		}
		return ExitFailure
	}
	fmt.Fprintf(stdout, "%s installed, %d already present", english.Count(len(rep.Installed), "file", "files"), len(rep.Present))
	if n := len(rep.Kept); n > 0 {
		fmt.Fprintf(stdout, "; %s kept for `hcbench data mirror`", english.Count(n, "source", "sources"))
	}
	fmt.Fprintln(stdout)
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
		if st.State != datadir.SetMissing {
			for _, n := range st.Notes() {
				fmt.Fprintf(stdout, "%s%s\n", pad, n)
			}
		}
		if kept, want := st.KeptSources(); st.State != datadir.SetMissing && kept < want {
			fmt.Fprintf(stdout, "%ssources: %d of %d kept, so `hcbench data mirror` cannot serve %s; `hcbench data fetch %s` downloads the others\n",
				pad, kept, want, s.Name, s.Name)
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
		notes := st.Notes()
		if len(ps) == 0 {
			fmt.Fprintf(stdout, "%s: ok (%s", sets[i].Name, english.Count(len(sets[i].Files)-st.Absent(), "file", "files"))
			if n := st.Absent(); n > 0 {
				fmt.Fprintf(stdout, "; %d optional absent", n)
			}
			switch kept, want := st.KeptSources(); {
			case want > 0 && kept == want:
				fmt.Fprintf(stdout, "; %s kept", english.Count(kept, "source", "sources"))
			case want > 0:
				fmt.Fprintf(stdout, "; %d of %d sources kept", kept, want)
			}
			fmt.Fprintln(stdout, ")")
			for _, n := range notes {
				fmt.Fprintln(stdout, "  "+n)
			}
			continue
		}
		for _, n := range notes {
			fmt.Fprintln(stdout, n)
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

func cmdDataMirror(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, dirFlag := dataFlags("mirror", "mirror [-data DIR] OUT [SET...]", stderr)
	rest, err := parse(fs, args)
	if err != nil {
		return flagError(fs, err, stdout)
	}
	if len(rest) == 0 {
		fmt.Fprintln(stderr, "hcbench data mirror: name the folder to write the mirror into")
		fs.Usage()
		return ExitUsage
	}
	out, names := rest[0], rest[1:]
	sets, err := dataSets(names)
	if err != nil {
		fmt.Fprintln(stderr, "hcbench data mirror:", err)
		return ExitUsage
	}
	loc, err := datadir.Locate(*dirFlag, dataGetenv)
	if err == nil {
		out, err = filepath.Abs(out)
	}
	if err != nil {
		fmt.Fprintln(stderr, "hcbench data mirror:", err)
		return ExitFailure
	}
	fmt.Fprintf(stdout, "data directory: %s\nmirror: %s\n", loc, out)
	var chosen []datadir.Set
	for i := range sets {
		if len(names) == 0 && datadir.Check(loc.Path, &sets[i]).State == datadir.SetMissing {
			fmt.Fprintf(stdout, "%s: not fetched, skipped\n", sets[i].Name)
			continue
		}
		chosen = append(chosen, sets[i])
	}
	if len(chosen) == 0 {
		fmt.Fprintf(stderr, "hcbench data mirror: no data set is in %s; fetch them with: hcbench data fetch\n", loc.Path)
		return ExitFailure
	}
	rep, err := datadir.WriteMirror(ctx, loc.Path, out, chosen, stderr)
	switch {
	case ctx.Err() != nil:
		fmt.Fprintln(stderr, "hcbench data mirror: interrupted; every file written is whole; run it again to go on")
		return ExitInterrupted
	case err != nil:
		for _, line := range strings.Split(err.Error(), "\n") {
			fmt.Fprintln(stderr, "hcbench data mirror:", line)
		}
		return ExitFailure
	}
	n := len(rep.Written) + len(rep.Present)
	fmt.Fprintf(stdout, "%s in the mirror (%d written, %d there already)\n", english.Count(n, "source", "sources"), len(rep.Written), len(rep.Present))
	if len(rep.Missing) > 0 {
		var missing []string
		for _, m := range rep.Missing {
			fmt.Fprintln(stderr, m.Problem())
			if set, _, _ := strings.Cut(m.Rel, "/"); !slices.Contains(missing, set) {
				missing = append(missing, set)
			}
		}
		fmt.Fprintf(stderr, "hcbench data mirror: %s not in the data directory, so the mirror lacks sources of %s; "+
			"`hcbench data fetch %s` downloads them (a data directory fetched before hcbench kept the sources of converted files lacks those), "+
			"then run this again; or copy the data directory itself and point -data at it\n",
			english.Count(len(rep.Missing), "source is", "sources are"), strings.Join(missing, ", "), strings.Join(missing, " "))
		return ExitFailure
	}
	fmt.Fprintf(stdout, "fetch from it with: hcbench data fetch -mirror %s\n", out)
	return ExitOK
}
