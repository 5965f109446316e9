package results

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hcbench/hcbench/internal/english"
	"github.com/hcbench/hcbench/internal/linelimit"
)

// ManifestSchema is the version of Manifest written by this build.
const ManifestSchema = 1

// Run statuses.
const (
	StatusRunning     = "running"     // the run is under way, or was killed
	StatusComplete    = "complete"    // every task ran (some may have failed; see Failed)
	StatusInterrupted = "interrupted" // stopped by a signal; finished records are kept
	// StatusIncomplete: tasks lack a record although the run was not interrupted: a merge of
	// shards that lacks some (merge -partial), or a run whose records could not all be written
	// (a full disk, an I/O error). Resuming runs the tasks without a record.
	StatusIncomplete = "incomplete"
)

// Manifest describes a run: what ran, where, when, and how it ended.
type Manifest struct {
	Schema int    `json:"schema"`
	Tool   string `json:"tool"`
	// Version is the module version. Executable is the SHA-256 of the running executable, which
	// identifies the build (see Build). Revision, RevisionTime and Modified, shown to a reader,
	// come from the VCS stamp of the build (go build in a git checkout); `go run` and
	// -buildvcs=false builds carry none, and then they are asked of git in the working directory.
	// RevisionSource says which. These fields and the host's describe the latest session;
	// Sessions lists every session's.
	Version        string `json:"version"`
	Executable     string `json:"executable_sha256,omitempty"`
	Revision       string `json:"revision,omitempty"`
	RevisionTime   string `json:"revision_time,omitempty"`
	Modified       bool   `json:"modified,omitempty"`
	RevisionSource string `json:"revision_source,omitempty"` // "buildinfo" or "git"
	// BuildWarning says why Executable is empty (the executable could not be read), so that
	// this build is told from others only by its revision, modified flag and Go version.
	BuildWarning string    `json:"build_warning,omitempty"`
	GoVersion    string    `json:"go_version"`
	Host         string    `json:"host"`
	OS           string    `json:"os"`
	Arch         string    `json:"arch"`
	CPUs         int       `json:"cpus"`
	Experiment   string    `json:"experiment"`
	Config       string    `json:"config"` // the config file as given
	Seed         uint64    `json:"seed,string"`
	Workers      int       `json:"workers"`
	Args         []string  `json:"args,omitempty"` // the command line; none in a merge
	Start        time.Time `json:"start"`
	End          time.Time `json:"end,omitzero"`
	Status       string    `json:"status"`
	Tasks        int       `json:"tasks"`
	Finished     int       `json:"finished"`
	Failed       int       `json:"failed"`
	Warnings     []string  `json:"warnings,omitempty"`
	// ConfigHash is the sha256 of the resolved config (config.yaml) without the keys that cannot
	// change a record (workers, shards, reports, thresholds, save_data). Resuming into a run
	// directory, or merging shards, needs it equal.
	ConfigHash string `json:"config_hash"`
	// Shard is the part of the plan this run did; nil for a whole run or a merge.
	Shard *Shard `json:"shard,omitempty"`
	// Resumes counts the times the run was resumed in its directory.
	Resumes int `json:"resumes,omitempty"`
	// Sessions are the processes that ran tasks of this run, first to last: the first run and
	// every resume, and in a merge those of every shard. Records of one run should come from one
	// build; a run or merge told to allow others (-allow-other-build) shows here which did what.
	Sessions []Session `json:"sessions,omitempty"`
	// MergedFrom lists the shard manifests a merged run was made from.
	MergedFrom []string `json:"merged_from,omitempty"`
	// Datasets, Algorithms and Reports are the config's data set names, algorithm labels and
	// reports, in config order, so that reports can be rebuilt from the run directory alone;
	// Reports then lists those added to the run since (report -reports), which a resume keeps.
	Datasets   []string `json:"datasets"`
	Algorithms []string `json:"algorithms"`
	Reports    []string `json:"reports"`
	// Thresholds are the config's regression thresholds, which compare reads from the later run.
	Thresholds Thresholds `json:"thresholds"`
	// DataFiles identify the data files the run read, by their SHA-256: with the config hash,
	// they are the run's identity, which a resume and the shards of a merge must share.
	DataFiles []DataFile `json:"data_files,omitempty"`
	// DataDir is the data directory that the config's data: paths named, for a reader.
	DataDir string `json:"data_dir,omitempty"`
	// Overrides are the -set flags that changed the run's config (config.yaml and the config
	// hash have their values). Only is the -only filter of the latest session ("": none): a
	// session of a filter leaves the run incomplete until one without runs the other tasks.
	Overrides []string `json:"overrides,omitempty"`
	Only      string   `json:"only,omitempty"`
	// Repetitions says how the repetitions of repeated tasks were ordered; nil when every task
	// runs once (or for runs of builds that ran a task's repetitions back to back).
	Repetitions *Repetitions `json:"repetitions,omitempty"`
}

// DataFile is a data file a run read: its data set, its path as the config writes it, its
// SHA-256 (hex) and size in bytes.
type DataFile struct {
	Dataset string `json:"dataset"`
	File    string `json:"file"`
	SHA256  string `json:"sha256"`
	Bytes   int64  `json:"bytes"`
}

// DataChanges describes how the data files of m differ from those of an earlier manifest of the
// same run (one line per file: changed, added or no longer read), or nil when they agree. A
// manifest written before data files were recorded has none, which is no change.
func (m *Manifest) DataChanges(earlier *Manifest) []string {
	if earlier.DataFiles == nil {
		return nil
	}
	key := func(f DataFile) string { return f.Dataset + "\x00" + f.File }
	old := map[string]DataFile{}
	for _, f := range earlier.DataFiles {
		old[key(f)] = f
	}
	var out []string
	for _, f := range m.DataFiles {
		o, ok := old[key(f)]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("data set %s reads %s, which it did not read before", f.Dataset, f.File))
		case o.SHA256 != f.SHA256:
			out = append(out, fmt.Sprintf("data set %s: %s has changed (sha256 %s, %d bytes, then; %s, %d bytes, now)", f.Dataset, f.File, Short(o.SHA256), o.Bytes, Short(f.SHA256), f.Bytes))
		}
		delete(old, key(f))
	}
	for _, f := range earlier.DataFiles {
		if _, ok := old[key(f)]; ok {
			out = append(out, fmt.Sprintf("data set %s no longer reads %s", f.Dataset, f.File))
		}
	}
	return out
}

// Shard is shard Index of Count (0 ≤ Index < Count): the tasks whose position k in the plan has
// k mod Count = Index.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Build identifies the code that wrote records: results of one build are comparable, and a
// resume and the shards of a merge are refused when their builds differ (Same).
//
// The build is the executable, identified by its SHA-256. The VCS stamp is no identity: Go's
// (go build) counts untracked files as a modification, git's status (asked for `go run`
// builds, which carry no stamp) counts an edited config or README, so that both call one
// build another; and two different uncommitted trees at one commit look alike. The
// executable's hash changes with the code compiled into it and with nothing else: a `go run`
// binary has no VCS stamp, so editing configs or docs leaves it unchanged, while editing Go
// code changes it. Revision, Modified and GoVersion are kept for a reader, and decide only
// where a hash is missing (an executable that could not be read; a manifest of an older
// hcbench).
type Build struct {
	Revision   string `json:"revision,omitempty"` // "" when unknown
	Modified   bool   `json:"modified,omitempty"`
	GoVersion  string `json:"go_version"`
	Executable string `json:"executable_sha256,omitempty"` // hex; "" when unknown
}

// Same reports whether b and o are one build: the same executable where both have its hash,
// else the same revision, modified flag and Go version.
func (b Build) Same(o Build) bool {
	return b.Mismatch(o) == ""
}

// Mismatch says how o is another build than b, for a refusal: "" when it is the same build.
func (b Build) Mismatch(o Build) string {
	switch {
	case b.Executable != "" && o.Executable != "":
		if b.Executable != o.Executable {
			return "the executables differ"
		}
		return ""
	case b.Revision != o.Revision || b.Modified != o.Modified || b.GoVersion != o.GoVersion:
		return "the revisions, modified flags or Go versions differ; an executable's hash is unknown, so the code itself is not compared"
	}
	return ""
}

// String names the build in messages: "revision 0123456789ab (modified), go1.26.8, executable
// sha256 fedcba987654" (hashes cut to 12 hex digits; no executable part where it is unknown).
func (b Build) String() string {
	s := "revision unknown"
	if b.Revision != "" {
		s = "revision " + Short(b.Revision)
		if b.Modified {
			s += " (modified)"
		}
	}
	s += ", " + OrUnknown(b.GoVersion, "Go version unknown")
	if b.Executable != "" {
		s += ", executable sha256 " + Short(b.Executable)
	}
	return s
}

// Commit is the revision as bench.txt's commit key writes it: with "+modified" for a build from
// a modified tree, or "unknown".
func (b Build) Commit() string {
	switch {
	case b.Revision == "":
		return "unknown"
	case b.Modified:
		return b.Revision + "+modified"
	}
	return b.Revision
}

// Short abbreviates a revision or hash to 12 characters for a message.
func Short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// OrUnknown returns s, or unknown when s is empty: for the fields of a manifest that an older
// or failed step left empty.
func OrUnknown(s, unknown string) string {
	if s == "" {
		return unknown
	}
	return s
}

// Plural returns one when n is 1, else many (english.Plural, for the packages that use this one).
func Plural(n int, one, many string) string { return english.Plural(n, one, many) }

// Session is one process that ran tasks of a run or shard.
type Session struct {
	Build
	Host    string    `json:"host"`
	CPUs    int       `json:"cpus"`
	Workers int       `json:"workers"`
	Start   time.Time `json:"start"`
	End     time.Time `json:"end,omitzero"` // zero: killed, or still running
	// Records counts the records the session wrote. A session killed before it could say is
	// credited on the next resume with the records that no earlier session claims.
	Records int `json:"records"`
	// Shard is the shard the session ran, in a merged manifest (in a shard's own manifest it is
	// the manifest's Shard).
	Shard *Shard `json:"shard,omitempty"`
}

// Build is the build of the latest session (the manifest's top-level fields).
func (m *Manifest) Build() Build {
	return Build{Revision: m.Revision, Modified: m.Modified, GoVersion: m.GoVersion, Executable: m.Executable}
}

// NewSession starts a session of this process with the manifest's build and host.
func (m *Manifest) NewSession(workers int, start time.Time) Session {
	return Session{Build: m.Build(), Host: m.Host, CPUs: m.CPUs, Workers: workers, Start: start}
}

// AllSessions returns the sessions; for a manifest written before sessions were recorded, one
// session made of its top-level fields.
func (m *Manifest) AllSessions() []Session {
	if len(m.Sessions) > 0 || m.Start.IsZero() {
		return m.Sessions
	}
	s := m.NewSession(m.Workers, m.Start)
	s.End, s.Records, s.Shard = m.End, m.Finished, m.Shard
	return []Session{s}
}

// Builds returns the distinct builds of the sessions (Same), in order of first appearance, each
// as its first session recorded it; none for a manifest that has no session. Sessions of one
// executable may record different revision fields (a `go run` build asks git, whose status
// changes with an edited config), and are still one build.
func (m *Manifest) Builds() []Build {
	var out []Build
	for _, s := range m.AllSessions() {
		if !slices.ContainsFunc(out, s.Build.Same) {
			out = append(out, s.Build)
		}
	}
	return out
}

// NewManifest fills in the tool, build and host fields.
func NewManifest() Manifest {
	m := Manifest{
		Schema:    ManifestSchema,
		Tool:      "hcbench",
		Version:   "(unknown)",
		GoVersion: runtime.Version(),
		OS:        runtime.GOOS,
		Arch:      runtime.GOARCH,
		CPUs:      runtime.NumCPU(),
		Status:    StatusRunning,
	}
	m.Host, _ = os.Hostname()
	if h, err := executableHash(); err == nil {
		m.Executable = h
	} else {
		m.BuildWarning = fmt.Sprintf("cannot hash the executable (%v), so this build is told from others by its revision, modified flag and Go version only, which miss uncommitted changes to the code", err)
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		m.Version = bi.Main.Version
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				m.Revision = s.Value
			case "vcs.time":
				m.RevisionTime = s.Value
			case "vcs.modified":
				m.Modified = s.Value == "true"
			}
		}
	}
	if m.Revision != "" {
		m.RevisionSource = "buildinfo"
	} else if rev, err := git("rev-parse", "HEAD"); err == nil && inOwnCheckout() {
		m.Revision, m.RevisionSource = rev, "git"
		m.RevisionTime, _ = git("show", "-s", "--format=%cI", "HEAD")
		status, err := git("status", "--porcelain", "--untracked-files=no")
		m.Modified = err == nil && status != ""
	}
	return m
}

// executableHash returns the SHA-256 (hex) of the running executable, computed once per process:
// reading a 20 MB binary takes milliseconds, and every manifest of the process names the same
// build. On Linux it reads /proc/self/exe, the file this process runs even after bin/hcbench
// is rebuilt under it; elsewhere the path os.Executable gives, read on the first call.
var executableHash = sync.OnceValues(func() (string, error) {
	path := "/proc/self/exe"
	if runtime.GOOS != "linux" {
		p, err := os.Executable()
		if err != nil {
			return "", err
		}
		path = p
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
})

// inOwnCheckout reports whether the working directory is inside a checkout of hcbench, so that
// a binary run from some other repository does not record that repository's revision.
func inOwnCheckout() bool {
	top, err := git("rev-parse", "--show-toplevel")
	if err != nil {
		return false
	}
	b, err := os.ReadFile(filepath.Join(top, "go.mod"))
	return err == nil && strings.HasPrefix(string(b), "module github.com/hcbench/hcbench\n")
}

// git runs a read-only git command in the working directory, giving up after two seconds.
func git(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", args...).Output()
	return strings.TrimSpace(string(out)), err
}

// WriteFile writes the manifest atomically (see WriteFileAtomic), so a reader never sees half of
// it.
func (m *Manifest) WriteFile(path string) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, append(b, '\n'))
}

// WriteFileAtomic writes a file through a temporary file in the same directory, synced and renamed
// into place (CreateAtomic), so that a kill, a full disk, or two shards writing the same file at
// once, never leave half of it.
func WriteFileAtomic(path string, b []byte) error {
	f, err := CreateAtomic(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		return err
	}
	return f.Commit()
}

// MaxManifestBytes bounds the size of a manifest file. A manifest takes a few KB, growing by a few
// hundred bytes per session and per warning; 16 MiB is thousands of times that, and keeps a wrong
// path (a data file, /dev/zero) from being read whole into memory.
const MaxManifestBytes = 16 << 20

// ReadManifest reads a manifest file, refusing other schema versions, and a file larger than
// MaxManifestBytes (16 MiB), which it reads no further than the limit, and never seeks: path may
// name a FIFO.
func ReadManifest(path string) (Manifest, error) {
	var m Manifest
	b, err := readAtMost(path, MaxManifestBytes)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s: not a run manifest: %v", path, err)
	}
	if m.Schema != ManifestSchema {
		return m, fmt.Errorf("%s: manifest schema %d, this build reads %d", path, m.Schema, ManifestSchema)
	}
	return m, nil
}

// readAtMost reads the file at path whole, refusing one larger than limit bytes having read at
// most limit+1 of them.
func readAtMost(path string, limit int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := 0
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		if fi.Size() > int64(limit) {
			return nil, fmt.Errorf("%s: %s, larger than %s, the limit for a run manifest (a manifest takes a few KB); is this the manifest.json of a run directory?", path, linelimit.Size(int(fi.Size())), linelimit.Size(limit))
		}
		size = int(fi.Size())
	}
	b := make([]byte, 0, min(size, limit)+512)
	for {
		if len(b) == cap(b) {
			// Double, the last step to limit+1: about twice the limit allocated in all, where
			// append, growing a large slice by a quarter, would allocate five times.
			c := 2 * cap(b)
			if c >= limit {
				c = limit + 1
			}
			b = append(make([]byte, 0, c), b...)
		}
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if len(b) > limit {
			return nil, fmt.Errorf("%s: larger than %s, the limit for a run manifest (a manifest takes a few KB); is this the manifest.json of a run directory?", path, linelimit.Size(limit))
		}
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
