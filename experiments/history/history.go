// Package history keeps the results of many runs over time, as asv keeps benchmarks per
// commit: it ingests run directories into an SQLite database (pure Go, no cgo), summarises
// every run per data set, algorithm label and N (and over all N) by the metrics of Metrics,
// finds the steps in each metric's series over the runs (DetectSteps: asv's piecewise
// constant model, an L1 Potts fit with a noise-scaled penalty and a regression check; see
// steps.go and docs/history.md), names the runs between which a metric changed (Bisect), and
// writes history.html, a self-contained page with a trend per series and a table of the
// regressions.
//
// Ingesting is idempotent: a run is keyed by its experiment, start time, config hash and build
// (the executable's SHA-256, revision, modified flag and Go version of its first session), so
// ingesting a directory again, or a copy of it, replaces its rows and adds none. Only finished
// runs are ingested (status complete; failed tasks are counted, and left out of the metrics): a
// run that was interrupted, killed or is incomplete holds a part of its items, whose means would
// read as steps, so Ingest refuses it with ErrUnfinished and the command says which.
package history

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/ncruces/go-sqlite3"
	_ "github.com/ncruces/go-sqlite3/driver" // the "sqlite3" database/sql driver, SQLite compiled to Go

	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/experiments/rundir"
	"github.com/hcbench/hcbench/internal/english"
)

// SchemaVersion is the version of the database's tables that this build writes; a database of
// another version is refused.
const SchemaVersion = 1

// The tables. Times are RFC 3339 text in UTC with nanoseconds (timeLayout: they sort as text); a run's build is a row of
// builds. groups and aggregates hold one row per (run, data set, algorithm, N), N = 0 for all
// items, and per metric of it.
var schema = []string{
	`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS builds (
		id INTEGER PRIMARY KEY,
		executable_sha256 TEXT NOT NULL,
		revision TEXT NOT NULL,
		revision_time TEXT NOT NULL,
		modified INTEGER NOT NULL,
		go_version TEXT NOT NULL,
		version TEXT NOT NULL,
		UNIQUE (executable_sha256, revision, modified, go_version))`,
	`CREATE TABLE IF NOT EXISTS runs (
		id INTEGER PRIMARY KEY,
		experiment TEXT NOT NULL,
		start TEXT NOT NULL,
		config_hash TEXT NOT NULL,
		build_id INTEGER NOT NULL REFERENCES builds(id),
		end_time TEXT NOT NULL,
		dir TEXT NOT NULL,
		host TEXT NOT NULL,
		cpus INTEGER NOT NULL,
		workers INTEGER NOT NULL,
		tasks INTEGER NOT NULL,
		failed INTEGER NOT NULL,
		builds INTEGER NOT NULL,
		datasets TEXT NOT NULL,
		algorithms TEXT NOT NULL,
		thresholds TEXT NOT NULL,
		ingested TEXT NOT NULL,
		UNIQUE (experiment, start, config_hash, build_id))`,
	`CREATE TABLE IF NOT EXISTS groups (
		run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
		dataset TEXT NOT NULL,
		algorithm TEXT NOT NULL,
		algorithm_name TEXT NOT NULL,
		n INTEGER NOT NULL,
		records INTEGER NOT NULL,
		failed INTEGER NOT NULL,
		PRIMARY KEY (run_id, dataset, algorithm, n))`,
	`CREATE TABLE IF NOT EXISTS aggregates (
		run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
		dataset TEXT NOT NULL,
		algorithm TEXT NOT NULL,
		n INTEGER NOT NULL,
		metric TEXT NOT NULL,
		value REAL NOT NULL,
		items INTEGER NOT NULL,
		PRIMARY KEY (run_id, dataset, algorithm, n, metric))`,
}

// DB is a history database.
type DB struct {
	db   *sql.DB
	path string
	// A database that Open makes is written as the hidden file tmp beside its path (abs), and put
	// there once it holds a run (keep).
	tmp, abs string
}

// Open opens the database at path, creating it and its tables when missing, and its directory.
// A new database appears at path only once Ingest has stored a run in it: a command that adds
// none (every run skipped, a full disk) leaves no file behind, neither empty nor broken.
func Open(ctx context.Context, path string) (*DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, fmt.Errorf("history database %s: %w", path, err)
	}
	h := &DB{path: path, abs: abs}
	file := abs
	if _, err := os.Stat(abs); errors.Is(err, fs.ErrNotExist) {
		if file, err = h.newFile(); err != nil {
			return nil, fmt.Errorf("history database %s: %w", path, err)
		}
	}
	if h.db, err = openFile(file); err != nil {
		h.Close()
		return nil, fmt.Errorf("history database %s: %w", path, err)
	}
	if err := h.init(ctx); err != nil {
		err = h.writeFailed(fmt.Errorf("history database %s: %w", path, err))
		h.Close()
		return nil, err
	}
	return h, nil
}

// openFile opens the SQLite database file.
func openFile(file string) (*sql.DB, error) {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(file)}
	// Another history command on the same database waits up to 10 s for it; foreign keys let a
	// run's rows go with it.
	u.RawQuery = "_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)"
	return sql.Open("sqlite3", u.String())
}

// newFile makes the hidden file that a new database is written as, beside its path.
func (h *DB) newFile() (string, error) {
	f, err := os.CreateTemp(filepath.Dir(h.abs), "."+filepath.Base(h.abs)+"-*")
	if err != nil {
		return "", err
	}
	h.tmp = f.Name()
	// CreateTemp makes the file private; SQLite makes a database as os.Create makes a file.
	return h.tmp, errors.Join(f.Chmod(0o644), f.Close())
}

// keep puts a new database at its path once it holds a run: a hard link, which fails rather
// than replace a database that another command made meanwhile (a rename where the file system
// has no hard links). The database is closed meanwhile and opened again by its path, so that its
// journal is named after it, where another command looks for it after a crash.
func (h *DB) keep() error {
	if h.tmp == "" {
		return nil
	}
	cerr := h.db.Close()
	err := os.Link(h.tmp, h.abs)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		err = os.Rename(h.tmp, h.abs)
	}
	file := h.tmp
	if err == nil {
		os.Remove(h.tmp) // after a link; gone after a rename
		file, h.tmp = h.abs, ""
	}
	h.db, _ = openFile(file) // sql.Open fails only for a driver not registered
	switch {
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("history database %s: another command made it while this one wrote a new one; run this one again to add its runs there", h.path)
	case err != nil || cerr != nil:
		return fmt.Errorf("history database %s: %w", h.path, errors.Join(cerr, err))
	}
	return nil
}

// writeFailed words SQLite's error for a write that the file system refused, which says only
// "disk I/O error", in place of err; other errors it returns as they are.
func (h *DB) writeFailed(err error) error {
	if !errors.Is(err, sqlite3.IOERR) && !errors.Is(err, sqlite3.FULL) {
		return err
	}
	cause := err // SQLite's, without what the callers wrapped it in
	for u := errors.Unwrap(cause); u != nil; u = errors.Unwrap(cause) {
		cause = u
	}
	left := "the database is as it was"
	if h.tmp != "" {
		left = "no database is left at " + h.path
	}
	return fmt.Errorf("history database %s could not be written (%w): is the disk full? (df %s shows the space left); SQLite undid the change, so %s", h.path, cause, filepath.Dir(h.abs), left)
}

func (h *DB) init(ctx context.Context) error {
	tx, err := h.db.BeginTx(ctx, nil)
	if err != nil {
		return notADatabase(err)
	}
	defer tx.Rollback()
	for _, s := range schema {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return notADatabase(err)
		}
	}
	var v string
	switch err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'schema'`).Scan(&v); {
	case errors.Is(err, sql.ErrNoRows):
		if _, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('schema', ?)`, fmt.Sprint(SchemaVersion)); err != nil {
			return err
		}
	case err != nil:
		return err
	case v != fmt.Sprint(SchemaVersion):
		return fmt.Errorf("schema version %s, this build reads %d", v, SchemaVersion)
	}
	return tx.Commit()
}

// notADatabase words SQLite's error for a file that is not a database.
func notADatabase(err error) error {
	if !errors.Is(err, sqlite3.NOTADB) {
		return err
	}
	return fmt.Errorf("%w (is this an hcbench history database?)", err)
}

// Close closes the database. A new one that holds no run is removed.
func (h *DB) Close() error {
	var err error
	if h.db != nil {
		err = h.db.Close()
	}
	if h.tmp != "" {
		os.Remove(h.tmp)
		os.Remove(h.tmp + "-journal") // left by a crash
	}
	return err
}

// Path is the database file as given to Open.
func (h *DB) Path() string { return h.path }

// ErrUnfinished is the error of Ingest for a run that did not finish.
var ErrUnfinished = errors.New("not a finished run")

// Ingested says what Ingest did with a run directory.
type Ingested struct {
	Dir        string
	Experiment string
	Start      time.Time
	Build      results.Build
	// Records counts the run's records, Groups the groups summarised.
	Records, Groups int
	// New: the run was not in the database before.
	New bool
}

// Ingest reads a run directory (manifest.json and results.jsonl) and stores its summary,
// replacing the rows of the same run (see the package comment). A directory that is not a run
// directory is an error that says what it holds; an unfinished run is an error wrapping
// ErrUnfinished.
func (h *DB) Ingest(ctx context.Context, dir string) (_ Ingested, err error) {
	defer func() { err = h.writeFailed(err) }()
	m, recs, err := rundir.Open(ctx, dir)
	if err != nil {
		return Ingested{}, err
	}
	if m.Status != results.StatusComplete {
		return Ingested{}, fmt.Errorf("%s: %w (status %s, %d of %s finished): its means would cover only some items; finish it first (hcbench run with its config and -out %s resumes it)",
			dir, ErrUnfinished, m.Status, m.Finished, english.Count(m.Tasks, "task", "tasks"), dir)
	}
	if m.Start.IsZero() || m.Experiment == "" {
		return Ingested{}, fmt.Errorf("%s: the manifest has no start time or experiment name", dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Ingested{}, err
	}
	// The first session's build, so that a resume by another build does not make the run a
	// new one; builds counts the builds of its sessions.
	builds := m.Builds()
	b := m.Build()
	if len(builds) > 0 {
		b = builds[0]
	}
	revTime := ""
	if b.Revision == m.Revision {
		revTime = m.RevisionTime
	}
	var jsons [3][]byte
	for i, v := range []any{m.Thresholds, m.Datasets, m.Algorithms} {
		if jsons[i], err = json.Marshal(v); err != nil {
			return Ingested{}, err
		}
	}
	groups := Summarise(recs)
	out := Ingested{Dir: dir, Experiment: m.Experiment, Start: m.Start, Build: b, Records: len(recs), Groups: len(groups)}

	tx, err := h.db.BeginTx(ctx, nil)
	if err != nil {
		return out, err
	}
	defer tx.Rollback()
	var buildID int64
	err = tx.QueryRowContext(ctx, `SELECT id FROM builds WHERE executable_sha256 = ? AND revision = ? AND modified = ? AND go_version = ?`,
		b.Executable, b.Revision, b.Modified, b.GoVersion).Scan(&buildID)
	if errors.Is(err, sql.ErrNoRows) {
		var res sql.Result
		res, err = tx.ExecContext(ctx, `INSERT INTO builds (executable_sha256, revision, revision_time, modified, go_version, version) VALUES (?, ?, ?, ?, ?, ?)`,
			b.Executable, b.Revision, revTime, b.Modified, b.GoVersion, m.Version)
		if err == nil {
			buildID, err = res.LastInsertId()
		}
	}
	if err != nil {
		return out, err
	}
	start := formatTime(m.Start)
	res, err := tx.ExecContext(ctx, `DELETE FROM runs WHERE experiment = ? AND start = ? AND config_hash = ? AND build_id = ?`,
		m.Experiment, start, m.ConfigHash, buildID)
	if err != nil {
		return out, err
	}
	if n, err := res.RowsAffected(); err == nil {
		out.New = n == 0
	}
	res, err = tx.ExecContext(ctx, `INSERT INTO runs (experiment, start, config_hash, build_id, end_time, dir, host, cpus, workers, tasks, failed, builds, datasets, algorithms, thresholds, ingested)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		m.Experiment, start, m.ConfigHash, buildID, formatTime(m.End), abs, m.Host, m.CPUs, m.Workers, m.Tasks, m.Failed, max(1, len(builds)),
		string(jsons[1]), string(jsons[2]), string(jsons[0]), formatTime(time.Now()))
	if err != nil {
		return out, err
	}
	runID, err := res.LastInsertId()
	if err != nil {
		return out, err
	}
	gStmt, err := tx.PrepareContext(ctx, `INSERT INTO groups (run_id, dataset, algorithm, algorithm_name, n, records, failed) VALUES (?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return out, err
	}
	defer gStmt.Close()
	aStmt, err := tx.PrepareContext(ctx, `INSERT INTO aggregates (run_id, dataset, algorithm, n, metric, value, items) VALUES (?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return out, err
	}
	defer aStmt.Close()
	for _, g := range groups {
		if _, err := gStmt.ExecContext(ctx, runID, g.Dataset, g.Algorithm, g.AlgorithmName, g.N, g.Records, g.Failed); err != nil {
			return out, err
		}
		for _, k := range sortedKeys(g.Values) {
			if _, err := aStmt.ExecContext(ctx, runID, g.Dataset, g.Algorithm, g.N, k, g.Values[k], g.Items[k]); err != nil {
				return out, err
			}
		}
	}
	// Builds no run names any more (a run re-ingested under another first build) go.
	if _, err := tx.ExecContext(ctx, `DELETE FROM builds WHERE id NOT IN (SELECT build_id FROM runs)`); err != nil {
		return out, err
	}
	if err := tx.Commit(); err != nil {
		return out, fmt.Errorf("history database %s: %w", h.path, err)
	}
	return out, h.keep()
}

// Counts returns the number of rows of each table, for tests and the command's summary.
func (h *DB) Counts(ctx context.Context) (map[string]int, error) {
	out := map[string]int{}
	for _, t := range []string{"builds", "runs", "groups", "aggregates"} {
		var n int
		if err := h.db.QueryRowContext(ctx, `SELECT count(*) FROM `+t).Scan(&n); err != nil {
			return nil, err
		}
		out[t] = n
	}
	return out, nil
}

// timeLayout is RFC 3339 in UTC with all nine digits of the nanoseconds, so that times sort as
// text (RFC3339Nano drops trailing zeros: "05Z" would sort after "05.5Z").
const timeLayout = "2006-01-02T15:04:05.000000000Z"

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(timeLayout)
}

// parseTime reads a time formatTime wrote; "" is the zero time.
func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	return time.Parse(time.RFC3339Nano, s)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
