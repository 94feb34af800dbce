package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/pprof"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"rangecopy/api"
	"rangecopy/inproc"
	"rangecopy/job"
	"rangecopy/master"
	"rangecopy/progress"
	"rangecopy/registry"
	"rangecopy/units"
	"rangecopy/verify"
)

// copyFlags are the command line of rangecopy copy, as typed.
type copyFlags struct {
	source, target                    clusterFlags
	rng                               rangeFlags
	workers                           int
	memory                            string
	bandwidth                         string
	protectSource                     string
	taskSize                          string
	createTable, keepSnapshot, dryRun bool
	pin                               string
	jsonOut                           bool
	resume                            string
	detach                            bool
	retries                           int
	registry                          registryFlags
	workDir                           string
	user                              userFlag
	log                               logFlags
	cpuProfile                        string
	api                               apiFlags
	wait                              bool
	idempotencyKey                    string
	verify                            string
	flags                             *pflag.FlagSet // to tell flags given from defaults
}

func newCopyCommand() *cobra.Command {
	var f copyFlags
	c := &cobra.Command{
		Use:   "copy --source <cluster> --target <cluster> --table <table>",
		Short: "copy a key range (and time range) of a table to another cluster",
		Long: `Copies a key range (and time range) of a table from the source cluster to the
target, online: it snapshots the source table, plans the range into tasks
registered in ZooKeeper, and runs them with embedded workers that read the
source's HFiles from its HDFS, write HFiles for the target's regions into the
target's HDFS and bulk load them. A copy that stops (killed, failed) is resumed
by running the same command again, or with --resume <job-id>.

With --detach the job is checked, registered in ZooKeeper for the running
"rangecopy master" and "rangecopy worker" processes, and its id printed; follow
it with "rangecopy job status <id>".

With --server (or $RANGECOPY_SERVER) the job is submitted to a rangecopy
server's REST API instead, and --source and --target are the NAMES of clusters
registered there (GET /api/v1/clusters); the token comes from --token-file or
$RANGECOPY_TOKEN. It prints the job's id and exits, as --detach does; with
--wait it follows the job to its end with a progress bar and prints the
report. Flags of a local run (--workers, --dry-run, --resume, --zk, --work-dir,
--user, --source-hdfs, --target-hdfs, --cpuprofile, --verify) do not go with
--server.

A cluster is a folder holding its hbase-site.xml (and core-site.xml,
hdfs-site.xml), or a ZooKeeper cluster key (zk1,zk2:2181:/hbase) together with
--source-hdfs/--target-hdfs. Row keys take the HBase shell's \xNN escapes;
times are cell timestamps in milliseconds. The report goes to stdout, progress
and the log to stderr. Exit status: 0 done, 1 failed, 2 bad command line.

With --verify (or --verify=raw) the copy, once done, is verified as
"rangecopy verify" does, over the copied rows, families and times before the
copy's snapshot, and both reports are printed (with --json one document of
"copy" and "verification"); exit status 3 if the target differs.`,
		Example: `  rangecopy copy --source /etc/hbase/conf --target zk1,zk2,zk3:2181:/hbase \
      --target-hdfs hdfs://nn2:8020/hbase --table ns:events \
      --start-row 'user\x00\x10' --stop-row 'user\x00\x20' \
      --start-time 1700000000000 --end-time 1700086400000 \
      --workers 8 --bandwidth 200MB/s --create-table

  rangecopy copy --source ... --target ... --table ns:events --protect-source 2x

  rangecopy copy --detach --zk zk1,zk2,zk3:2181 --source ... --target ... --table ns:events

  rangecopy copy --server https://rc1:8080 --token-file ~/.rangecopy-token \
      --source dc1 --target dc2 --table ns:events --bandwidth 200MB/s --wait`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			f.flags = c.Flags()
			return runCopyCommand(c.Context(), f, c.OutOrStdout(), c.ErrOrStderr())
		},
	}
	fs := c.Flags()
	fs.SortFlags = false
	f.source.add(fs, "source")
	f.target.add(fs, "target")
	f.rng.add(fs, "copy", "required unless --resume")
	fs.BoolVar(&f.createTable, "create-table", false, "create a missing target table, pre-split like the source")
	fs.IntVar(&f.workers, "workers", 4, "tasks run at once")
	fs.StringVar(&f.memory, "memory", "512MiB", "memory budget of the workers' buffers, shared by the tasks that run at once (read-ahead shrinks as input files multiply); the Go heap's soft limit is this plus 64MiB unless GOMEMLIMIT is set")
	fs.StringVar(&f.bandwidth, "bandwidth", "", "job-wide read limit, e.g. 200MB/s, 1.5GiB/s, at most 1TB/s (default none)")
	fs.StringVar(&f.protectSource, "protect-source", "", "throttle the copy to keep the source's read p99 (small uncached reads probed on every region server) at a target: a factor of the p99 measured before the copy, e.g. 2x, or a latency, e.g. 20ms; --bandwidth is then the ceiling (default no throttle)")
	fs.StringVar(&f.taskSize, "task-size", "", "input bytes a task aims at, e.g. 512MiB (default 512MiB)")
	fs.BoolVar(&f.keepSnapshot, "keep-snapshot", false, "keep the source snapshot when the copy is done")
	fs.StringVar(&f.pin, "pin", "snapshot", "how the source's files are pinned: snapshot (a flush snapshot, kept until the copy ends), "+
		"or live (the regions flushed and the files their servers have open read, no snapshot: a second or more quicker, "+
		"for copies that read their input within the cleaner's TTL; a plan of more than 1 GiB, or regions whose flush "+
		"does not settle, take a snapshot after all)")
	fs.BoolVar(&f.dryRun, "dry-run", false, "print the plan and change nothing")
	fs.BoolVar(&f.jsonOut, "json", false, "print the final report as JSON on stdout")
	fs.StringVar(&f.resume, "resume", "", "id of a stopped job to go on with")
	fs.BoolVar(&f.detach, "detach", false, "register the job for the running masters and workers, print its id and exit")
	fs.IntVar(&f.retries, "retries", 0, "with --detach: resets of a failed task before the job pauses (default 3)")
	f.registry.add(fs, "the target's quorum")
	fs.StringVar(&f.workDir, "work-dir", "", "parent of the job's work folder on the target HDFS (default /user/<user>/.rangecopy)")
	f.user.add(fs, "HBase effective user and HDFS user")
	f.log.add(fs)
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile (pprof) of the run to this file, for performance work")
	f.api.add(fs)
	fs.BoolVar(&f.wait, "wait", false, "with --server: follow the job to its end with a progress bar and print its report (exit 1 unless done)")
	fs.StringVar(&f.idempotencyKey, "idempotency-key", "", "with --server: the submission's Idempotency-Key, to submit again safely (default a random one)")
	fs.StringVar(&f.verify, "verify", "", "once the copy is done, verify the target against the source over the copied selection (times before the copy's snapshot), as rangecopy verify does: visible (--verify) or raw (--verify=raw); exit 3 if they differ")
	fs.Lookup("verify").NoOptDefVal = "visible"
	f.log.complete(c)
	_ = c.MarkFlagFilename("cpuprofile")
	_ = c.RegisterFlagCompletionFunc("verify", cobra.FixedCompletions([]cobra.Completion{"visible", "raw"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// runCopyCommand checks the flags, then copies (or with --detach submits).
func runCopyCommand(ctx context.Context, f copyFlags, stdout, stderr io.Writer) error {
	if err := f.log.check(); err != nil {
		return err
	}
	if f.flags != nil {
		remote, err := useServer(f.flags, f.api)
		if err != nil {
			return err
		}
		if remote {
			return runRemoteCopy(ctx, f, stdout, stderr)
		}
		if err := noServerFlags(f.flags, "wait", "idempotency-key"); err != nil {
			return err
		}
	}
	opts, err := copyOptions(f)
	if err != nil {
		return err
	}
	var verifyMode verify.Mode
	if f.verify != "" {
		switch {
		case f.detach || f.dryRun:
			return usageErrorf("--verify does not go with --detach or --dry-run: it verifies a copy this process ran (run rangecopy verify after a detached job)")
		case f.resume != "" && f.rng.table == "":
			return usageErrorf("--verify with --resume needs the copy's selection (--table and the rest) to verify")
		}
		if verifyMode, err = verify.ParseMode(f.verify); err != nil {
			return usageErrorf("--verify: %v", err)
		}
	}
	mem, err := parseMemory(f.memory)
	if err != nil {
		return usageErrorf("%v", err)
	}
	if f.detach {
		if f.dryRun || f.resume != "" {
			return usageErrorf("--detach does not go with --dry-run or --resume (use rangecopy job resume)")
		}
		return runSubmit(ctx, opts, f.log, stdout, stderr)
	}
	if f.retries != 0 {
		return usageErrorf("--retries goes with --detach (a rangecopy copy process tries each task 3 times; run it again to retry)")
	}
	if f.cpuProfile != "" {
		pf, err := os.Create(f.cpuProfile)
		if err != nil {
			return usageErrorf("--cpuprofile: %v", err)
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return fmt.Errorf("--cpuprofile %s: %w", f.cpuProfile, err)
		}
		defer pprof.StopCPUProfile()
	}
	setHeapLimit(mem, os.Getenv("GOMEMLIMIT"))
	return runCopy(ctx, opts, mem, f.log, f.jsonOut, verifyMode, stdout, stderr)
}

// copyOptions turns the flags into the master's options. It reads cluster
// configuration folders but talks to no cluster.
func copyOptions(f copyFlags) (master.Options, error) {
	var o master.Options
	usage := func(format string, args ...any) (master.Options, error) {
		return o, usageErrorf(format, args...)
	}
	if f.source.spec == "" || f.target.spec == "" {
		return usage("--source and --target are required")
	}
	if f.rng.table == "" && f.resume == "" {
		return usage("--table is required (or --resume <job-id>)")
	}
	var err error
	if o.Source, err = f.source.config(); err != nil {
		return o, err
	}
	if o.Target, err = f.target.config(); err != nil {
		return o, err
	}
	req, err := f.rng.request()
	if err != nil {
		return o, err
	}
	req.Bandwidth, req.TaskSize, req.Retries, req.ProtectSource = f.bandwidth, f.taskSize, f.retries, f.protectSource
	req.CreateTable, req.KeepSnapshot, req.Pin = f.createTable, f.keepSnapshot, f.pin
	var spec job.Spec
	var set job.Settings
	if f.resume != "" && f.rng.table == "" {
		set, err = req.ResolveSettings() // the job's own spec is used
	} else {
		spec, set, err = req.Resolve()
	}
	if err != nil {
		return o, fieldUsage(err)
	}
	if f.resume == "" {
		o.Spec = spec
	}
	if f.workers < 1 {
		return usage("--workers %d: at least 1", f.workers)
	}
	o.Workers = f.workers
	o.Settings = set // the job's settings as POST /jobs resolves them
	o.DryRun = f.dryRun
	o.Resume = f.resume
	if err := f.registry.check(); err != nil {
		return o, err
	}
	o.ZK, o.ZKRoot = f.registry.servers(), f.registry.zkRoot
	o.WorkRoot = f.workDir
	o.User = f.user.get()
	return o, nil
}

// parseMemory reads the --memory size: at least 32MiB.
func parseMemory(s string) (int64, error) {
	n, err := units.ParseBytes(s)
	if err != nil || n < 32<<20 {
		return 0, fmt.Errorf("--memory %q: want a size of at least 32MiB, e.g. 512MiB", s)
	}
	return int64(n), nil
}

// submissionOf turns the flags into a job submission for a server: --source and --target
// name registered clusters.
func submissionOf(f copyFlags) (api.JobSubmission, error) {
	if err := onlyWithoutServer(f.flags, "the server runs the job with its own workers and settings",
		"workers", "dry-run", "resume", "detach", "zk-root", "work-dir", "user", "source-hdfs", "target-hdfs", "cpuprofile", "memory", "verify"); err != nil {
		return api.JobSubmission{}, err
	}
	if f.source.spec == "" || f.target.spec == "" {
		return api.JobSubmission{}, usageErrorf("--source and --target are required: names of clusters registered with the server")
	}
	if f.rng.table == "" {
		return api.JobSubmission{}, usageErrorf("--table is required")
	}
	req, err := f.rng.request()
	if err != nil {
		return api.JobSubmission{}, err
	}
	req.Bandwidth, req.TaskSize, req.Retries, req.ProtectSource = f.bandwidth, f.taskSize, f.retries, f.protectSource
	req.CreateTable, req.KeepSnapshot, req.Pin = f.createTable, f.keepSnapshot, f.pin
	// The server checks it again; checking here names the flags.
	if _, _, err := req.Resolve(); err != nil {
		return api.JobSubmission{}, fieldUsage(err)
	}
	return api.JobSubmission{Source: f.source.spec, Target: f.target.spec, CopyRequest: api.CopyRequest(req)}, nil
}

// runRemoteCopy submits the copy to a server and prints its id, or with --wait follows it
// to the end and prints its report.
func runRemoteCopy(ctx context.Context, f copyFlags, stdout, stderr io.Writer) error {
	sub, err := submissionOf(f)
	if err != nil {
		return err
	}
	api, err := f.api.client()
	if err != nil {
		return err
	}
	key := f.idempotencyKey
	if key == "" {
		key = newIdempotencyKey()
	}
	j, created, err := api.SubmitJob(ctx, sub, key)
	if err != nil {
		return err
	}
	if !created {
		fmt.Fprintf(stderr, "rangecopy: the server holds this copy already: job %s (%s)\n", j.ID, j.State)
	}
	if !f.wait {
		if f.jsonOut {
			return writeJobJSON(stdout, j)
		}
		_, err = fmt.Fprintln(stdout, j.ID)
		return err
	}
	fmt.Fprintf(stderr, "rangecopy: job %s submitted to %s\n", j.ID, api.URL())
	end, err := followJob(ctx, api, j.ID, 0, stderr)
	if end.ID != "" {
		var werr error
		switch {
		case f.jsonOut:
			werr = writeJobJSON(stdout, end)
		case end.Report != nil:
			werr = progress.WriteText(stdout, jobReport(*end.Report))
		default:
			werr = writeJobText(stdout, end)
		}
		if err == nil {
			err = werr
		}
	}
	return err
}

// runCopy runs the copy with progress on stderr (a bar on a terminal, log
// lines otherwise) and prints the report on stdout. On a terminal only
// warnings are logged, so as not to break the bar, unless -v asks for debug
// detail.
//
// With verifyMode set, a copy that is done is then verified (verifyCopy) and
// both reports printed; a difference is errDifferent.
func runCopy(ctx context.Context, opts master.Options, mem int64, lf logFlags, jsonOut bool, verifyMode verify.Mode, stdout, stderr io.Writer) error {
	terminal := isTerminal(stderr)
	level := slog.LevelInfo
	if terminal {
		level = slog.LevelWarn
	}
	var err error
	if opts.Logger, err = lf.logger(stderr, level); err != nil {
		return err
	}
	opts.Out = stdout
	lo := inproc.Options{Options: opts, Memory: mem}
	if !opts.DryRun {
		lo.Progress, lo.ProgressInterval = progressPrinter(stderr, opts.Logger, "copy")
	}
	rep, err := inproc.Copy(ctx, lo)
	if opts.DryRun {
		return err
	}
	if verifyMode != 0 && err == nil && rep.Status == job.ReportDone {
		vrep, verr := verifyCopy(ctx, opts, rep.Job, verifyMode)
		if verr != nil {
			return fmt.Errorf("copy %s done; its verification failed: %w", rep.Job, verr)
		}
		if jsonOut {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			err = enc.Encode(struct {
				Copy         job.Report    `json:"copy"`
				Verification verify.Report `json:"verification"`
			}{rep, vrep})
		} else if err = progress.WriteText(stdout, rep); err == nil {
			err = verify.WriteText(stdout, vrep)
		}
		if err == nil && !vrep.Equal() {
			err = fmt.Errorf("%w: copy %s done, then %d batches of %d mismatched, %d cells differ", errDifferent, rep.Job, vrep.BatchesMismatched, vrep.Batches, vrep.DifferenceCount)
		}
		return err
	}
	if rep.Job != "" || err == nil {
		if jsonOut {
			if werr := progress.WriteJSON(stdout, rep); werr != nil && err == nil {
				err = werr
			}
		} else if werr := progress.WriteText(stdout, rep); werr != nil && err == nil {
			err = werr
		}
	}
	return err
}

// verifyCopy verifies the copy job id made with opts (rangecopy verify's
// comparison, as a registry job in the copy's registry) over its selection,
// up to the time its snapshot was named (master.SnapshotStamp): what the
// copy holds. A cell written since with an older timestamp is a difference.
func verifyCopy(ctx context.Context, opts master.Options, id string, mode verify.Mode) (verify.Report, error) {
	servers := opts.ZK
	if len(servers) == 0 {
		servers = opts.Target.ZKQuorum
	}
	reg, err := openRegistry(ctx, registry.Config{Servers: servers, Root: opts.ZKRoot, Logger: opts.Logger.With("part", "registry")})
	if err != nil {
		return verify.Report{}, err
	}
	defer reg.Close()
	j, err := reg.Job(ctx, id)
	if err != nil {
		return verify.Report{}, fmt.Errorf("job %s: %w", id, err)
	}
	rec, err := job.DecodeRecord(j.Spec)
	if err != nil {
		return verify.Report{}, fmt.Errorf("job %s: %w", id, err)
	}
	until, ok := master.SnapshotStamp(id, rec.Snapshot)
	if !ok {
		return verify.Report{}, fmt.Errorf("job %s: no time in its snapshot's name %q", id, rec.Snapshot)
	}
	spec := rec.Spec
	tr := spec.Times()
	tr.Max = min(tr.Max, until.UnixMilli())
	if tr.Max <= tr.Min {
		return verify.Report{}, fmt.Errorf("job %s copied times %s, all after its snapshot was named (%d): nothing to verify", id, spec.Times(), until.UnixMilli())
	}
	o := verify.Options{Source: opts.Source, Target: opts.Target, User: opts.User, Table: spec.Table, TargetTable: spec.TargetTable,
		Rows: spec.Rows, Time: tr, Families: spec.Families, Mode: mode, Bandwidth: opts.Bandwidth, Parallelism: opts.Workers, Logger: opts.Logger}
	opts.Logger.Info("copy: verifying the copy", "job", id, "mode", mode.String(), "until", until.UnixMilli())
	o.Registry = reg
	return verify.Run(ctx, o)
}

// runSubmit registers a detached job and prints its id alone on stdout.
func runSubmit(ctx context.Context, opts master.Options, lf logFlags, stdout, stderr io.Writer) error {
	var err error
	if opts.Logger, err = lf.logger(stderr, slog.LevelWarn); err != nil {
		return err
	}
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
