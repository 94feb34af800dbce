package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/user"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"rangecopy/cluster"
	"rangecopy/job"
	"rangecopy/master"
	"rangecopy/progress"
)

const copyUsage = `Usage: rangecopy copy --source <cluster> --target <cluster> --table <table> [flags]

Copies a key range (and time range) of a table from the source cluster to the
target, online: it snapshots the source table, plans the range into tasks
registered in ZooKeeper, and runs them with embedded workers that read the
source's HFiles from its HDFS, write HFiles for the target's regions into the
target's HDFS and bulk load them. A copy that stops (killed, failed) is resumed
by running the same command again, or with --resume <job-id>.

With --detach the job is checked, registered in ZooKeeper for the running
"rangecopy master" and "rangecopy worker" processes, and its id printed; follow
it with "rangecopy job status <id>".

A cluster is a folder holding its hbase-site.xml (and core-site.xml,
hdfs-site.xml), or a ZooKeeper cluster key (zk1,zk2:2181:/hbase) together with
--source-hdfs/--target-hdfs. Row keys take the HBase shell's \xNN escapes.

Flags:
`

// copyFlags are the command line of rangecopy copy, as typed.
type copyFlags struct {
	source, target, sourceHDFS, targetHDFS string
	table, targetTable                     string
	startRow, stopRow                      string
	startTime, endTime                     string
	families                               string
	workers                                int
	bandwidth                              string
	createTable, keepSnapshot, dryRun      bool
	jsonOut                                bool
	zkRoot, zk, workDir, user, resume      string
	taskSize                               string
	verbose                                bool
	detach                                 bool
	retries                                int
	cpuProfile                             string
}

func copyFlagSet(w io.Writer, f *copyFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("copy", flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprint(w, copyUsage)
		fs.PrintDefaults()
	}
	fs.StringVar(&f.source, "source", "", "source cluster: ZooKeeper cluster key or folder of its site files (required)")
	fs.StringVar(&f.target, "target", "", "target cluster: ZooKeeper cluster key or folder of its site files (required)")
	fs.StringVar(&f.sourceHDFS, "source-hdfs", "", "source hbase.rootdir, hdfs://namenode:port/path (needed with a cluster key)")
	fs.StringVar(&f.targetHDFS, "target-hdfs", "", "target hbase.rootdir, hdfs://namenode:port/path (needed with a cluster key)")
	fs.StringVar(&f.table, "table", "", "source table, [namespace:]name (required unless --resume)")
	fs.StringVar(&f.targetTable, "target-table", "", "target table (default the source table's name)")
	fs.StringVar(&f.startRow, "start-row", "", "first row to copy (inclusive; default the start of the table)")
	fs.StringVar(&f.stopRow, "stop-row", "", "row to stop before (exclusive; default the end of the table)")
	fs.StringVar(&f.startTime, "start-time", "", "oldest cell timestamp to copy, ms (inclusive; default 0)")
	fs.StringVar(&f.endTime, "end-time", "", "cell timestamp to stop before, ms (exclusive; default no limit)")
	fs.StringVar(&f.families, "families", "", "comma-separated column families to copy (default all)")
	fs.IntVar(&f.workers, "workers", 4, "tasks run at once")
	fs.StringVar(&f.bandwidth, "bandwidth", "", "job-wide read limit, e.g. 200MB/s, 1.5GiB/s (default none)")
	fs.BoolVar(&f.createTable, "create-table", false, "create a missing target table, pre-split like the source")
	fs.BoolVar(&f.keepSnapshot, "keep-snapshot", false, "keep the source snapshot when the copy is done")
	fs.BoolVar(&f.dryRun, "dry-run", false, "print the plan and change nothing")
	fs.BoolVar(&f.jsonOut, "json", false, "print the final report as JSON on stdout")
	fs.StringVar(&f.zkRoot, "zk-root", "/rangecopy", "registry root in ZooKeeper")
	fs.StringVar(&f.zk, "zk", "", "ZooKeeper servers of the registry, host:port,... (default the target's quorum)")
	fs.StringVar(&f.workDir, "work-dir", "", "parent of the job's work folder on the target HDFS (default /user/<user>/.rangecopy)")
	fs.StringVar(&f.user, "user", "", "HBase effective user and HDFS user (default the OS user)")
	fs.StringVar(&f.resume, "resume", "", "id of a stopped job to go on with")
	fs.StringVar(&f.taskSize, "task-size", "", "input bytes a task aims at, e.g. 512MiB (default 512MiB)")
	fs.BoolVar(&f.verbose, "v", false, "log every task and file")
	fs.BoolVar(&f.detach, "detach", false, "register the job for the running masters and workers, print its id and exit")
	fs.IntVar(&f.retries, "retries", 0, "with --detach: resets of a failed task before the job pauses (default 3)")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile (pprof) of the run to this file, for performance work")
	return fs
}

func runCopyCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f copyFlags
	fs := copyFlagSet(stderr, &f)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	opts, err := copyOptions(f)
	if err != nil {
		return err
	}
	if f.detach {
		if f.dryRun || f.resume != "" {
			return fmt.Errorf("%w: --detach does not go with --dry-run or --resume (use rangecopy job resume)", errUsage)
		}
		return runSubmit(ctx, opts, stdout, stderr)
	}
	if f.retries != 0 {
		return fmt.Errorf("%w: --retries goes with --detach (a rangecopy copy process tries each task 3 times; run it again to retry)", errUsage)
	}
	if f.cpuProfile != "" {
		pf, err := os.Create(f.cpuProfile)
		if err != nil {
			return fmt.Errorf("%w: --cpuprofile: %v", errUsage, err)
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return fmt.Errorf("--cpuprofile %s: %w", f.cpuProfile, err)
		}
		defer pprof.StopCPUProfile()
	}
	return runCopy(ctx, opts, f.jsonOut, stdout, stderr)
}

// copyOptions turns the flags into the master's options. It reads cluster
// configuration folders but talks to no cluster.
func copyOptions(f copyFlags) (master.Options, error) {
	var o master.Options
	usage := func(format string, args ...any) (master.Options, error) {
		return o, fmt.Errorf("%w: "+format, append([]any{errUsage}, args...)...)
	}
	if f.source == "" || f.target == "" {
		return usage("--source and --target are required")
	}
	if f.table == "" && f.resume == "" {
		return usage("--table is required (or --resume <job-id>)")
	}
	var err error
	if o.Source, err = clusterOf("source", f.source, f.sourceHDFS); err != nil {
		return o, err
	}
	if o.Target, err = clusterOf("target", f.target, f.targetHDFS); err != nil {
		return o, err
	}
	o.Spec = job.Spec{Table: f.table, TargetTable: f.targetTable}
	if o.Spec.Rows.Start, err = job.ParseKey(f.startRow); err != nil {
		return usage("--start-row: %v", err)
	}
	if o.Spec.Rows.End, err = job.ParseKey(f.stopRow); err != nil {
		return usage("--stop-row: %v", err)
	}
	if len(o.Spec.Rows.Start) == 0 {
		o.Spec.Rows.Start = nil
	}
	if len(o.Spec.Rows.End) == 0 {
		o.Spec.Rows.End = nil
	}
	if f.startTime != "" || f.endTime != "" {
		o.Spec.Time = job.AllTime()
		if f.startTime != "" {
			if o.Spec.Time.Min, err = strconv.ParseInt(f.startTime, 10, 64); err != nil {
				return usage("--start-time %q: not a number of milliseconds", f.startTime)
			}
		}
		if f.endTime != "" {
			if o.Spec.Time.Max, err = strconv.ParseInt(f.endTime, 10, 64); err != nil {
				return usage("--end-time %q: not a number of milliseconds", f.endTime)
			}
		}
	}
	if f.families != "" {
		for _, fam := range strings.Split(f.families, ",") {
			if fam = strings.TrimSpace(fam); fam != "" {
				o.Spec.Families = append(o.Spec.Families, fam)
			}
		}
	}
	if f.resume == "" {
		if err := o.Spec.Validate(); err != nil {
			return usage("%v", err)
		}
	}
	if f.workers < 1 {
		return usage("--workers %d: at least 1", f.workers)
	}
	o.Workers = f.workers
	if f.bandwidth != "" {
		if o.Bandwidth, err = parseBandwidth(f.bandwidth); err != nil {
			return usage("--bandwidth: %v", err)
		}
	}
	if f.taskSize != "" {
		n, err := parseBytes(f.taskSize)
		if err != nil || n < 1<<20 {
			return usage("--task-size %q: want a size of at least 1MiB, e.g. 256MiB", f.taskSize)
		}
		o.TaskBytes = int64(n)
	}
	if f.retries < 0 || f.retries > job.MaxRetries {
		return usage("--retries %d: want 0 to %d", f.retries, job.MaxRetries)
	}
	o.Retries = f.retries
	o.CreateTable, o.KeepSnapshot, o.DryRun = f.createTable, f.keepSnapshot, f.dryRun
	o.Resume = f.resume
	o.ZKRoot = f.zkRoot
	if f.zk != "" {
		for _, s := range strings.Split(f.zk, ",") {
			if s = strings.TrimSpace(s); s != "" {
				if !strings.Contains(s, ":") {
					s += ":2181"
				}
				o.ZK = append(o.ZK, s)
			}
		}
	}
	o.WorkRoot = f.workDir
	o.User = f.user
	if o.User == "" {
		if u, err := user.Current(); err == nil {
			o.User = u.Username
		}
	}
	return o, nil
}

// clusterOf reads --source/--target and the matching --*-hdfs.
func clusterOf(name, s, rootDir string) (cluster.Config, error) {
	c, err := cluster.Parse(name, s)
	if err != nil {
		return c, fmt.Errorf("%w: --%s: %v", errUsage, name, err)
	}
	if rootDir != "" {
		nns, dir, err := cluster.ParseRootDir(rootDir, nil)
		if err != nil {
			return c, fmt.Errorf("%w: --%s-hdfs: %v", errUsage, name, err)
		}
		c.NameNodes, c.RootDir = nns, dir
	}
	if !c.HasHDFS() {
		return c, fmt.Errorf("%w: --%s %s names no HDFS: give --%s-hdfs hdfs://namenode:port/hbase-root", errUsage, name, s, name)
	}
	return c, nil
}

// parseBandwidth reads a rate such as 200MB/s, 1.5GiB/s or 1048576 (bytes
// per second; the "/s" is optional).
func parseBandwidth(s string) (float64, error) {
	v, err := parseBytes(strings.TrimSuffix(strings.TrimSpace(s), "/s"))
	if err != nil {
		return 0, fmt.Errorf("%q: %v (e.g. 200MB/s, 1.5GiB/s)", s, err)
	}
	if v <= 0 {
		return 0, fmt.Errorf("%q: must be more than 0", s)
	}
	return v, nil
}

// parseBytes reads a size with an optional unit: B, KB/MB/GB/TB (powers of
// 1000), KiB/MiB/GiB/TiB (powers of 1024); K, M, G, T are taken as binary.
func parseBytes(s string) (float64, error) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	if i == 0 {
		return 0, errors.New("no number")
	}
	v, err := strconv.ParseFloat(s[:i], 64)
	if err != nil {
		return 0, fmt.Errorf("bad number %q", s[:i])
	}
	units := map[string]float64{
		"": 1, "b": 1,
		"k": 1 << 10, "kb": 1e3, "kib": 1 << 10,
		"m": 1 << 20, "mb": 1e6, "mib": 1 << 20,
		"g": 1 << 30, "gb": 1e9, "gib": 1 << 30,
		"t": 1 << 40, "tb": 1e12, "tib": 1 << 40,
	}
	u, ok := units[strings.ToLower(strings.TrimSpace(s[i:]))]
	if !ok {
		return 0, fmt.Errorf("unknown unit %q", s[i:])
	}
	return v * u, nil
}

// runCopy runs the copy with progress on stderr (a bar on a terminal, log
// lines otherwise) and prints the report on stdout.
func runCopy(ctx context.Context, opts master.Options, jsonOut bool, stdout, stderr io.Writer) error {
	terminal := isTerminal(stderr)
	level := slog.LevelInfo
	if terminal {
		level = slog.LevelWarn
	}
	opts.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	opts.Out = stdout
	if !opts.DryRun {
		if terminal {
			opts.Progress = &progress.Terminal{W: stderr}
			opts.ProgressInterval = 500 * time.Millisecond
		} else {
			opts.Progress = &progress.Log{Logger: opts.Logger}
			opts.ProgressInterval = 10 * time.Second
		}
	}
	rep, err := master.Copy(ctx, opts)
	if opts.DryRun {
		return err
	}
	if rep.Job != "" || err == nil {
		if jsonOut {
			if werr := rep.WriteJSON(stdout); werr != nil && err == nil {
				err = werr
			}
		} else if werr := rep.WriteText(stdout); werr != nil && err == nil {
			err = werr
		}
	}
	return err
}

// runSubmit registers a detached job and prints its id alone on stdout.
func runSubmit(ctx context.Context, opts master.Options, stdout, stderr io.Writer) error {
	opts.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	id, existing, err := master.Submit(ctx, opts)
	if err != nil {
		return err
	}
	if existing {
		fmt.Fprintf(stderr, "rangecopy: the same copy is already submitted and not finished: job %s\n", id)
	}
	_, err = fmt.Fprintln(stdout, id)
	return err
}

// isTerminal reports whether w is a character device (an interactive
// terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
