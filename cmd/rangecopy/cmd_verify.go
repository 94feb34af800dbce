package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/spf13/cobra"

	"rangecopy/job"
	"rangecopy/local"
	"rangecopy/master"
	"rangecopy/units"
	"rangecopy/verify"
)

// errDifferent is the error of a verification that ran and found the
// tables different; main maps it to exitDifferent.
var errDifferent = errors.New("the tables differ")

// verifyFlags are the command line of rangecopy verify, as typed.
type verifyFlags struct {
	source, target clusterFlags
	rng            rangeFlags
	mode           string
	maxDiffs       int
	jsonOut        bool
	bandwidth      string
	parallelism    int
	batchSize      string
	keepSnapshots  bool
	repair         bool
	registry       registryFlags
	workDir        string
	user           userFlag
	log            logFlags
}

func newVerifyCommand() *cobra.Command {
	var f verifyFlags
	c := &cobra.Command{
		Use:   "verify --source <cluster> --target <cluster> --table <table>",
		Short: "compare a key range (and time range) of a table on two clusters, from their HFiles",
		Long: `Compares a key range (and time range) of a table on the source cluster with the
target table, reading HFiles, not region servers: it snapshots both tables,
reads both sides' store files straight from their HDFS, merges each side
with HBase's read semantics and compares them. Both sides are hashed in
row-aligned batches (SHA-256 over every cell's row, family, qualifier,
timestamp, type and value, length-framed) in parallel; only the batches
whose hashes differ are read again to list the differing cells.

--mode visible (the default) compares what a read of every version returns:
delete markers applied, versions capped by each family's VERSIONS, TTL
honoured; it stays valid after either table compacts. --mode raw compares
every cell and delete marker, which a compaction changes.

The time range selects cells and delete markers by timestamp before any
delete applies, as a copy of that range selects them: a marker newer than
the range does not mask older cells here.

--repair re-copies the mismatched row ranges with the copy path ("rangecopy
copy" of each range, bulk loaded) and verifies them again; the report is the
second verification's, listing the ranges repaired. It adds what the
target lacks and replaces values under the same key; cells only the target
has, and delete markers written on the target, stay and are reported again.

The report goes to stdout, the log to stderr. Exit status: 0 equal, 3 the
tables differ (the report lists how), 1 the comparison failed, 2 bad command
line.`,
		Example: `  rangecopy verify --source /etc/hbase/conf --target zk1,zk2,zk3:2181:/hbase \
      --target-hdfs hdfs://nn2:8020/hbase --table ns:events \
      --start-row 'user\x00\x10' --stop-row 'user\x00\x20' --end-time 1700086400000

  rangecopy verify --source ... --target ... --table ns:events --mode raw --json --max-diffs 100`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runVerifyCommand(c.Context(), f, c.OutOrStdout(), c.ErrOrStderr())
		},
	}
	fs := c.Flags()
	fs.SortFlags = false
	f.source.add(fs, "source")
	f.target.add(fs, "target")
	f.rng.add(fs, "compare", "required")
	fs.StringVar(&f.mode, "mode", "visible", "what to compare: visible (what reads return) or raw (every cell and marker)")
	fs.IntVar(&f.maxDiffs, "max-diffs", verify.DefaultMaxDiffs, "differing cells listed in the report (all are counted)")
	fs.BoolVar(&f.jsonOut, "json", false, "print the report as JSON on stdout")
	fs.StringVar(&f.bandwidth, "bandwidth", "", "read limit of both sides together, e.g. 200MB/s (default none)")
	fs.IntVar(&f.parallelism, "parallelism", verify.DefaultParallelism, "regions read at once")
	fs.StringVar(&f.batchSize, "batch-size", "", "input bytes a hashed batch aims at, e.g. 32MiB (default 32MiB)")
	fs.BoolVar(&f.keepSnapshots, "keep-snapshots", false, "keep both snapshots when done")
	fs.BoolVar(&f.repair, "repair", false, "re-copy the mismatched row ranges, then verify them again")
	f.registry.add(fs, "the target's quorum; with --repair")
	fs.StringVar(&f.workDir, "work-dir", "", "with --repair: parent of the copy's work folder on the target HDFS (default /user/<user>/.rangecopy)")
	f.user.add(fs, "HBase effective user and HDFS user")
	f.log.add(fs)
	f.log.complete(c)
	_ = c.RegisterFlagCompletionFunc("mode", cobra.FixedCompletions([]cobra.Completion{"visible", "raw"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// verifyOptions turns the flags into verify's options. It reads cluster
// configuration folders but talks to no cluster.
func verifyOptions(f verifyFlags) (verify.Options, error) {
	var o verify.Options
	if f.source.spec == "" || f.target.spec == "" {
		return o, usageErrorf("--source and --target are required")
	}
	if f.rng.table == "" {
		return o, usageErrorf("--table is required")
	}
	var err error
	if o.Source, err = f.source.config(); err != nil {
		return o, err
	}
	if o.Target, err = f.target.config(); err != nil {
		return o, err
	}
	spec, err := f.rng.spec()
	if err != nil {
		return o, err
	}
	if err := spec.Validate(); err != nil {
		return o, usageErrorf("%v", err)
	}
	o.Table, o.TargetTable, o.Rows, o.Time, o.Families = spec.Table, spec.TargetTable, spec.Rows, spec.Time, spec.Families
	if o.Mode, err = verify.ParseMode(f.mode); err != nil {
		return o, usageErrorf("--mode: %v", err)
	}
	if f.maxDiffs < 1 {
		return o, usageErrorf("--max-diffs %d: at least 1", f.maxDiffs)
	}
	o.MaxDiffs = f.maxDiffs
	if f.parallelism < 1 {
		return o, usageErrorf("--parallelism %d: at least 1", f.parallelism)
	}
	o.Parallelism = f.parallelism
	if f.bandwidth != "" {
		if o.Bandwidth, err = units.ParseRate(f.bandwidth); err != nil {
			return o, usageErrorf("--bandwidth: %v", err)
		}
	}
	if f.batchSize != "" {
		n, err := units.ParseBytes(f.batchSize)
		if err != nil || n < 1<<10 {
			return o, usageErrorf("--batch-size %q: want a size of at least 1KiB, e.g. 32MiB", f.batchSize)
		}
		o.BatchBytes = int64(n)
	}
	if err := f.registry.check(); err != nil {
		return o, err
	}
	o.KeepSnapshots = f.keepSnapshots
	o.User = f.user.get()
	return o, nil
}

// runVerifyCommand checks the flags, verifies (and repairs) and prints the
// report.
func runVerifyCommand(ctx context.Context, f verifyFlags, stdout, stderr io.Writer) error {
	if err := f.log.check(); err != nil {
		return err
	}
	o, err := verifyOptions(f)
	if err != nil {
		return err
	}
	if o.Logger, err = f.log.logger(stderr, slog.LevelWarn); err != nil {
		return err
	}
	rep, err := verify.Run(ctx, o)
	if err != nil {
		return err
	}
	if f.repair && !rep.Equal() {
		o.Logger.Warn("verify: the tables differ; repairing the mismatched ranges", "batches_mismatched", rep.BatchesMismatched,
			"differences", rep.DifferenceCount, "ranges", len(rep.MismatchedRanges))
		copyOpts := master.Options{Source: o.Source, Target: o.Target, Workers: 4, Bandwidth: o.Bandwidth,
			ZK: f.registry.servers(), ZKRoot: f.registry.zkRoot, WorkRoot: f.workDir, User: o.User, Logger: o.Logger}
		if rep, err = verify.Repair(ctx, o, rep, repairCopier(copyOpts, o)); err != nil {
			return err
		}
	}
	if err := writeVerifyReport(stdout, rep, f.jsonOut); err != nil {
		return err
	}
	if !rep.Equal() {
		return fmt.Errorf("%w: %d batches of %d mismatched, %d cells differ", errDifferent, rep.BatchesMismatched, rep.Batches, rep.DifferenceCount)
	}
	return nil
}

// repairCopier copies one row range of o's selection with a one-process
// copy (local.Copy) configured by base.
func repairCopier(base master.Options, o verify.Options) verify.CopyFunc {
	return func(ctx context.Context, rng job.KeyRange) error {
		co := base
		co.Spec = job.Spec{Table: o.Table, TargetTable: o.TargetTable, Rows: rng, Time: o.Time, Families: o.Families}
		rep, err := local.Copy(ctx, local.Options{Options: co})
		if err != nil {
			return fmt.Errorf("copy rows %s (job %s): %w", rng, rep.Job, err)
		}
		return nil
	}
}

func writeVerifyReport(w io.Writer, rep verify.Report, jsonOut bool) error {
	if jsonOut {
		return verify.WriteJSON(w, rep)
	}
	return verify.WriteText(w, rep)
}
