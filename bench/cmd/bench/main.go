// Command bench measures rangecopy against the raw HDFS copy limit,
// ExportSnapshot, CopyTable and a scan+put copy, side by side in one run on
// the test environment's two clusters (make testenv-up), with a steady Get
// workload on the source throughout. It writes bench/results/<time>.json, a
// PNG chart beside it, and regenerates the table in docs/benchmarks.md.
//
// Usage (from the module root; make bench does this):
//
//	go run ./bench/cmd/bench [--size 2GiB] [--methods all] [--rate 150] ...
//
// The same program is the child copier of the raw and scan+put methods when
// RANGECOPY_BENCH_CHILD is set: then it reads a spec on stdin and copies.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"rangecopy/bench"
	"rangecopy/testenv"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if kind := os.Getenv(bench.ChildEnvVar); kind != "" {
		if err := bench.RunChild(ctx, kind, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "bench child:", err)
			os.Exit(1)
		}
		return
	}
	err := run(ctx, os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type flags struct {
	size, methods, table, rangecopy, results, doc, testenvDir, command string
	rate                                                               float64
	workers                                                            int
	idle                                                               time.Duration
	reuse, keepTable, profile                                          bool
}

func run(ctx context.Context, args []string, stderr io.Writer) error {
	var f flags
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.size, "size", "2GiB", "source table size in HFile bytes (GiB, MiB, ... or bytes)")
	var names []string
	for _, m := range bench.Methods {
		names = append(names, m.String())
	}
	fs.StringVar(&f.methods, "methods", "all", "comma-separated methods, or all: "+strings.Join(names, ", "))
	fs.Float64Var(&f.rate, "rate", 150, "Gets per second of the steady workload on the source")
	fs.IntVar(&f.workers, "workers", 4, "parallelism of every method")
	fs.DurationVar(&f.idle, "idle", time.Minute, "how long the idle Get baseline runs")
	fs.StringVar(&f.table, "table", "", "source table name (default bench_<size in MiB>)")
	fs.BoolVar(&f.reuse, "reuse", false, "reuse the source table if it exists with this size (skips loading)")
	fs.BoolVar(&f.keepTable, "keep-table", false, "keep the source table after the run (for --reuse)")
	fs.StringVar(&f.rangecopy, "rangecopy", "bin/rangecopy", "the rangecopy binary (make build)")
	fs.StringVar(&f.results, "results", "bench/results", "folder for the JSON record, chart and logs")
	fs.StringVar(&f.doc, "doc", "docs/benchmarks.md", "markdown document whose generated table to update (empty: none)")
	fs.StringVar(&f.testenvDir, "testenv", "", "testenv state folder (default $RANGECOPY_TESTENV or .testenv)")
	fs.BoolVar(&f.profile, "profile", false, "write a CPU profile of every rangecopy run into the results folder")
	fs.StringVar(&f.command, "command", "", "the command to record as this run's (default the program's own command line)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	size, err := bench.ParseSize(f.size)
	if err != nil {
		return fmt.Errorf("--size: %w", err)
	}
	methods, err := bench.ParseMethods(f.methods)
	if err != nil {
		return fmt.Errorf("--methods: %w", err)
	}
	if f.rate <= 0 || f.rate > 10000 {
		return fmt.Errorf("--rate %v: want Gets/s in (0, 10000]", f.rate)
	}
	if f.workers < 1 || f.workers > 64 {
		return fmt.Errorf("--workers %d: want 1 to 64", f.workers)
	}
	if f.idle < time.Second {
		return fmt.Errorf("--idle %v: want at least 1s", f.idle)
	}
	if f.table == "" {
		f.table = fmt.Sprintf("bench_%dMiB", size>>20)
	}
	rc, err := filepath.Abs(f.rangecopy)
	if err != nil {
		return fmt.Errorf("--rangecopy: %w", err)
	}
	if _, err := os.Stat(rc); err != nil {
		return fmt.Errorf("--rangecopy %s: %w (run make build)", f.rangecopy, err)
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find this program for the child copiers: %w", err)
	}
	dir := f.testenvDir
	if dir == "" {
		if dir, err = testenv.DefaultDir(); err != nil {
			return err
		}
	}
	te, err := testenv.Load(dir)
	if err != nil {
		return fmt.Errorf("test environment in %s: %w (make testenv-up)", dir, err)
	}
	if f.command == "" {
		f.command = "go run ./bench/cmd/bench " + strings.Join(args, " ")
	}

	log := slog.New(slog.NewTextHandler(stderr, nil))
	env, err := bench.Connect(ctx, te)
	if err != nil {
		return err
	}
	defer env.Close()
	stamp := time.Now().UTC().Format("20060102T150405Z")
	env.Rangecopy, env.Child, env.Workers, env.GetRate = rc, self, f.workers, f.rate
	env.Prefix = "bench_" + stamp
	env.LogDir, err = filepath.Abs(filepath.Join(f.results, "logs", stamp))
	if err != nil {
		return err
	}
	env.Profile, env.Logger = f.profile, log

	r, err := env.RunAll(ctx, bench.Options{Table: f.table, Rows: bench.RowsForSize(size), Reuse: f.reuse, KeepTable: f.keepTable,
		Methods: methods, Idle: f.idle, Command: f.command})
	if r == nil {
		return err
	}
	path, werr := bench.WriteOutputs(r, f.results, f.doc)
	if werr != nil {
		return errors.Join(err, werr)
	}
	log.Info("run written", "json", path, "doc", f.doc)
	for _, a := range bench.Aims(r) {
		log.Info("aim", "name", a.Name, "want", a.Want, "got", a.Got, "status", a.Status)
	}
	return err
}
