package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/colinmarc/hdfs/v2"

	"rangecopy/fsys"
	"rangecopy/hbase"
	"rangecopy/snapshot"
	"rangecopy/testenv"
)

// ChildEnvVar names the environment variable that turns a process running
// the benchmark (bench/cmd/bench, or a test binary) into a child copier: its
// value is the copier, RunChild the work.
const ChildEnvVar = "RANGECOPY_BENCH_CHILD"

// Env is what the executors drive: both clusters of a running testenv, a
// client of each, the rangecopy binary and the program to run child copiers
// with.
type Env struct {
	Source, Target *testenv.Cluster
	// SourceClient and TargetClient are our hbase clients of each cluster.
	SourceClient, TargetClient *hbase.Client
	// SourceFS is the source's HDFS as the harness's user.
	SourceFS *fsys.HDFS
	// HarnessPIDs are the harness JVMs' process ids (one a cluster), for
	// RSS samples.
	HarnessPIDs []int
	// HBaseVersion and HadoopVersion are what the harness runs.
	HBaseVersion, HadoopVersion string
	// Rangecopy is the path of the rangecopy binary.
	Rangecopy string
	// Child is the program run, with ChildEnvVar set, as a child copier.
	Child string
	// Workers is every method's parallelism.
	Workers int
	// GetRate is the Get workload's rate, Gets/s.
	GetRate float64
	// Prefix starts the names of the tables and snapshots a run creates.
	Prefix string
	// LogDir receives the child processes' standard error, and CPU
	// profiles of rangecopy when Profile is set.
	LogDir  string
	Profile bool
	Logger  *slog.Logger

	// verifyTarget is the copy of the source table the verification
	// methods compare it with, made once a run (empty until then).
	verifyTarget string
	// manyTable is the many-files table, loaded once a run before its
	// method (nil until then).
	manyTable *Table
}

// Connect builds an Env on a running testenv. Close releases its clients.
func Connect(ctx context.Context, te *testenv.Env) (*Env, error) {
	e := &Env{Source: te.Source, Target: te.Target, HarnessPIDs: te.PIDs(), HBaseVersion: te.HBaseVersion, HadoopVersion: te.HadoopVersion, Workers: 4, GetRate: 150, Logger: slog.New(slog.DiscardHandler)}
	var err error
	e.SourceClient, err = dialCluster(ctx, te.Source)
	if err != nil {
		return nil, err
	}
	e.TargetClient, err = dialCluster(ctx, te.Target)
	if err != nil {
		e.SourceClient.Close()
		return nil, err
	}
	e.SourceFS, err = fsys.OpenHDFS([]string{te.Source.NameNode}, te.Source.User, fsys.HDFSOptions{})
	if err != nil {
		e.Close()
		return nil, fmt.Errorf("connect to source NameNode %s: %w", te.Source.NameNode, err)
	}
	return e, nil
}

func dialCluster(ctx context.Context, c *testenv.Cluster) (*hbase.Client, error) {
	cl, err := hbase.Dial(ctx, hbase.Config{ZKQuorum: strings.Split(c.ZKQuorum, ","), ZNodeParent: c.ZNodeParent, User: c.User})
	if err != nil {
		return nil, fmt.Errorf("connect to %s cluster %s: %w", c.Name, c.ClusterKey, err)
	}
	return cl, nil
}

// Close releases the clients.
func (e *Env) Close() {
	if e.SourceClient != nil {
		e.SourceClient.Close()
	}
	if e.TargetClient != nil {
		e.TargetClient.Close()
	}
	if e.SourceFS != nil {
		e.SourceFS.Close()
	}
}

// Table is the benchmark's source table as loaded, with its pinned files.
type Table struct {
	Dataset
	// Pinned is a snapshot of the table (named Snapshot), read: the raw
	// copier copies its files.
	Pinned   *snapshot.Pinned
	Snapshot string
}

var resultRE = regexp.MustCompile(`RESULT rows=(\d+) bytes=(\d+) seconds=([0-9.]+)`)

// LoadTable creates the benchmark table on the source and writes rows rows
// through HBase's write path with testenv's BenchLoad, timestamps spread over
// the week before now: first the older 99%, flushed and major-compacted (a
// settled table), then the newest 1%, flushed into files of their own, as a
// day of fresh writes would be. With reuse, an existing table of that name
// and size is taken as it is.
func (e *Env) LoadTable(ctx context.Context, table string, rows int64, reuse bool) (*Table, error) {
	d := Dataset{Table: table, Rows: rows, Regions: len(SplitKeys()) + 1, Families: Families,
		KeyBytes: KeyBytes, DValueBytes: DValueBytes, MValueBytes: MValueBytes, SpanMs: 7 * 24 * 3600 * 1000}
	start := time.Now()
	loaded := false
	if reuse {
		res, err := e.SourceClient.Get(ctx, table, hbase.Get{Row: RowKey(0)})
		if err == nil && len(res.Cells) > 0 {
			last, err := e.SourceClient.Get(ctx, table, hbase.Get{Row: RowKey(rows - 1)})
			beyond, err2 := e.SourceClient.Get(ctx, table, hbase.Get{Row: RowKey(rows)})
			if err != nil || err2 != nil || len(last.Cells) == 0 || len(beyond.Cells) != 0 {
				return nil, fmt.Errorf("reuse table %s: it does not hold exactly %d benchmark rows (another size?)", table, rows)
			}
			d.StartMs = int64(res.Cells[0].Timestamp)
			loaded = true
			e.Logger.Info("reusing the source table", "table", table, "rows", rows)
		}
	}
	if !loaded {
		if err := e.Source.DeleteTable(ctx, table); err != nil {
			return nil, fmt.Errorf("load table %s: drop the old one: %w", table, err)
		}
		fams := []testenv.Family{{Name: "d"}, {Name: "m"}}
		// Compaction on: the older 99% is major compacted on purpose.
		if err := e.Source.CreateTableWith(ctx, table, fams, SplitKeys(), testenv.TableOptions{Compaction: true}); err != nil {
			return nil, fmt.Errorf("load table %s: %w", table, err)
		}
		d.StartMs = time.Now().Add(-7 * 24 * time.Hour).UnixMilli()
		newest := NewestFrom(rows, 0.01)
		// Chunks of an eighth of the table (at least 50,000 rows, about
		// 67 MB) keep each harness call well inside its timeout and log
		// progress.
		chunk := max((newest+7)/8, 50_000)
		for from := int64(0); from < newest; from += chunk {
			if err := e.load(ctx, d, from, min(from+chunk, newest)); err != nil {
				return nil, err
			}
		}
		e.Logger.Info("major-compacting the older 99%", "table", table)
		if err := e.Source.Compact(ctx, table, true); err != nil {
			return nil, fmt.Errorf("load table %s: major compaction: %w", table, err)
		}
		if err := e.load(ctx, d, newest, rows); err != nil {
			return nil, err
		}
		d.LoadSeconds = time.Since(start).Seconds()
	}
	e.SourceClient.DeleteSnapshot(ctx, e.Prefix+"_raw")
	t, err := e.pinTable(ctx, d, e.Prefix+"_raw")
	if err != nil {
		return nil, fmt.Errorf("load table %s: %w", table, err)
	}
	return t, nil
}

// pinTable pins the source table of d with the snapshot name and returns it
// with its files counted and sized.
func (e *Env) pinTable(ctx context.Context, d Dataset, name string) (*Table, error) {
	p, err := snapshot.Pin(ctx, e.SourceClient, e.SourceFS, e.Source.RootDirPath(), d.Table, name, snapshot.Options{})
	if err != nil {
		return nil, err
	}
	t := &Table{Dataset: d, Snapshot: name, Pinned: p}
	for _, f := range p.Files {
		t.Files++
		t.Bytes += f.Size
	}
	return t, nil
}

func (e *Env) load(ctx context.Context, d Dataset, from, to int64) error {
	return e.write(ctx, d, from, to, true)
}

// write writes rows [from, to) of d through HBase; with flush false they stay in the
// memstores, where an application's latest writes are, rather than being flushed to files.
func (e *Env) write(ctx context.Context, d Dataset, from, to int64, flush bool) error {
	args := []string{d.Table, strconv.FormatInt(d.Rows, 10), strconv.FormatInt(from, 10), strconv.FormatInt(to, 10),
		strconv.FormatInt(d.StartMs, 10), strconv.FormatInt(d.SpanMs, 10), strconv.Itoa(d.DValueBytes), strconv.Itoa(d.MValueBytes)}
	if !flush {
		args = append(args, "memstore")
	}
	res, err := e.Source.RunTool(ctx, "rangecopy.testenv.BenchLoad", args, nil)
	if err != nil {
		return fmt.Errorf("load rows [%d, %d) of %s: %w", from, to, d.Table, err)
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("load rows [%d, %d) of %s: BenchLoad exit %d: %s", from, to, d.Table, res.ExitCode, tail(res.Output))
	}
	m := resultRE.FindStringSubmatch(res.Output)
	if m == nil {
		return fmt.Errorf("load rows [%d, %d) of %s: no RESULT line in %s", from, to, d.Table, tail(res.Output))
	}
	e.Logger.Info("loaded rows", "table", d.Table, "from", from, "to", to, "seconds", m[3])
	return nil
}

// Release deletes the table's pinning snapshot.
func (e *Env) Release(ctx context.Context, t *Table) error {
	return snapshot.Release(ctx, e.SourceClient, t.Snapshot)
}

func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 2000 {
		s = "…" + s[len(s)-2000:]
	}
	return s
}

// runChild runs a child copier with spec as its input and decodes its result.
func (e *Env) runChild(ctx context.Context, kind string, spec any, logName string) (ChildResult, Proc, error) {
	in, err := json.Marshal(spec)
	if err != nil {
		return ChildResult{}, Proc{}, fmt.Errorf("child %s: encode spec: %w", kind, err)
	}
	logf, err := e.logFile(logName)
	if err != nil {
		return ChildResult{}, Proc{}, err
	}
	defer logf.Close()
	p, err := RunProc(ctx, []string{e.Child}, []string{ChildEnvVar + "=" + kind}, in, logf)
	if err != nil {
		return ChildResult{}, p, fmt.Errorf("child %s: %w", kind, err)
	}
	var res ChildResult
	if err := json.Unmarshal(p.Stdout, &res); err != nil {
		return ChildResult{}, p, fmt.Errorf("child %s: decode result %q: %w", kind, p.Stdout, err)
	}
	return res, p, nil
}

// runJSON runs a rangecopy command that prints a --json report, its
// standard error going to the log file logName, and decodes the report into
// rep. The command's own failure wins over a report that does not decode.
func (e *Env) runJSON(ctx context.Context, args []string, logName string, rep any) (Proc, error) {
	logf, err := e.logFile(logName)
	if err != nil {
		return Proc{}, err
	}
	defer logf.Close()
	p, err := RunProc(ctx, args, nil, nil, logf)
	if jerr := json.Unmarshal(bytes.TrimSpace(p.Stdout), rep); jerr != nil && err == nil {
		err = fmt.Errorf("decode the --json report %q: %w", p.Stdout, jerr)
	}
	return p, err
}

func (e *Env) logFile(name string) (*os.File, error) {
	dir := e.LogDir
	if dir == "" {
		dir = os.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("log folder %s: %w", dir, err)
	}
	f, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		return nil, fmt.Errorf("log file: %w", err)
	}
	return f, nil
}

func testenvHDFS(c *testenv.Cluster) (*hdfs.Client, error) {
	fs, err := hdfs.NewClient(hdfs.ClientOptions{Addresses: []string{c.NameNode}, User: c.User})
	if err != nil {
		return nil, fmt.Errorf("connect to %s NameNode %s: %w", c.Name, c.NameNode, err)
	}
	return fs, nil
}
