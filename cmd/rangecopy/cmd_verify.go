package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"rangecopy/cluster"
	"rangecopy/cluster/dial"
	"rangecopy/fsys"
	"rangecopy/hashtable"
	"rangecopy/inproc"
	"rangecopy/job"
	"rangecopy/master"
	"rangecopy/progress"
	"rangecopy/registry"
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
	readAll        bool
	repair         bool
	registry       registryFlags
	workDir        string
	user           userFlag
	log            logFlags
	hashOut        string
	against        string
	hashBatch      int64
	numHashFiles   int
	versions       int
	api            apiFlags
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

--hashtable-out DIR writes, instead of comparing, what HBase's HashTable
would write for the source table over the selection: the cells a HashTable
scan returns (delete markers applied, --versions versions, default 1),
hashed from the source's HFiles with HashTable's MD5 batches
(--hash-batch-size, default 8000 bytes), one split per source region,
partitioned into --num-hash-files files (default HashTable's: a hundredth
of the regions, at least 1). HBase's "SyncTable --dryrun DIR <source table>
<target table>" run on the target then checks the target against it. DIR is
a local folder, or hdfs://namenode:port/path on the target's (or source's)
HDFS; it must not exist. --target is not needed for a local DIR.

--against-hashtable DIR compares the target table with the output of HBase's
HashTable run on the source (DIR local or on either cluster's HDFS): the
target's HFiles are read with the manifest's scan (rows, time range,
families, versions: the range flags are not taken), hashed into the
source's batches, and each batch's MD5 compared, as SyncTable --dryrun
compares them. With --source too, the mismatched batches are read on both
sides and their differing cells listed. --source and --table are optional
(the manifest names the table).

A comparison (neither HashTable flag) runs as a job in the registry (--zk,
--zk-root, as rangecopy copy's): its record names both snapshots and each
unit (a side's batches in one region) is a task whose checkpoint holds the
hashes of its batches. Running rangecopy worker agents on that registry
hash units too. Interrupted, the same command run again resumes: the same
snapshots, the units already hashed kept (the report's units line says how
many were resumed and how many hashed). This process compares the hashes,
lists the differences and ends the job.

With --server (or $RANGECOPY_SERVER), the verification runs on rangecopy
server (POST /api/v1/verifications): --source and --target name clusters
registered there, the command waits for its end and prints its report. The
server's own settings replace --parallelism, --batch-size, --user and the
registry flags there; the HashTable flags are not taken.

The report goes to stdout, the log to stderr. Exit status: 0 equal, 3 the
tables differ (the report lists how), 1 the comparison failed, 2 bad command
line.`,
		Example: `  rangecopy verify --source /etc/hbase/conf --target zk1,zk2,zk3:2181:/hbase \
      --target-hdfs hdfs://nn2:8020/hbase --table ns:events \
      --start-row 'user\x00\x10' --stop-row 'user\x00\x20' --end-time 1700086400000

  rangecopy verify --source ... --target ... --table ns:events --mode raw --json --max-diffs 100

  rangecopy verify --server https://rc1:8443 --source dc1 --target dc2 --table ns:events --repair`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			server, err := useServer(c.Flags(), f.api)
			if err != nil {
				return err
			}
			if server {
				return runVerifyOnServer(c, f)
			}
			if err := noServerFlags(c.Flags()); err != nil {
				return err
			}
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
	fs.StringVar(&f.bandwidth, "bandwidth", "", "read limit of both sides together, e.g. 200MB/s, at most 1TB/s (default none)")
	fs.IntVar(&f.parallelism, "parallelism", verify.DefaultParallelism, "regions read at once")
	fs.StringVar(&f.batchSize, "batch-size", "", "input bytes a hashed batch aims at, e.g. 32MiB (default 32MiB)")
	fs.BoolVar(&f.keepSnapshots, "keep-snapshots", false, "keep both snapshots when done")
	fs.BoolVar(&f.readAll, "read-all", false, "hash every batch from the HFiles; without it, a batch whose store files are byte-for-byte the same on both sides by their HDFS checksums (as a fast-path copy leaves them) matches unread")
	fs.BoolVar(&f.repair, "repair", false, "re-copy the mismatched row ranges, then verify them again")
	f.registry.add(fs, "the target's quorum")
	fs.StringVar(&f.workDir, "work-dir", "", "with --repair: parent of the copy's work folder on the target HDFS (default /user/<user>/.rangecopy)")
	fs.StringVar(&f.hashOut, "hashtable-out", "", "write HBase HashTable output of the source to this folder (local or hdfs://) instead of comparing")
	fs.StringVar(&f.against, "against-hashtable", "", "compare the target with this HBase HashTable output folder (local or hdfs://)")
	fs.Int64Var(&f.hashBatch, "hash-batch-size", hashtable.DefaultBatchSize, "with --hashtable-out: HashTable's target batch size in bytes")
	fs.IntVar(&f.numHashFiles, "num-hash-files", 0, "with --hashtable-out: hash files (default HashTable's: regions/100, at least 1)")
	fs.IntVar(&f.versions, "versions", 0, "with --hashtable-out: versions of a column hashed (default 1, as HashTable's scan)")
	f.user.add(fs, "HBase effective user and HDFS user")
	f.api.add(fs)
	f.log.add(fs)
	f.log.complete(c)
	_ = c.RegisterFlagCompletionFunc("mode", cobra.FixedCompletions([]cobra.Completion{"visible", "raw"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// verifyOptions turns the flags into verify's options. It reads cluster
// configuration folders but talks to no cluster.
func verifyOptions(f verifyFlags) (verify.Options, error) {
	var o verify.Options
	switch {
	case f.hashOut != "" && f.against != "":
		return o, usageErrorf("--hashtable-out and --against-hashtable exclude each other")
	case (f.hashOut != "" || f.against != "") && f.repair:
		return o, usageErrorf("--repair does not go with --hashtable-out or --against-hashtable")
	case (f.hashOut != "" || f.against != "") && f.mode == "raw":
		return o, usageErrorf("--mode raw does not go with --hashtable-out or --against-hashtable: HashTable's default scan is not raw")
	case f.hashOut != "":
		if f.source.spec == "" {
			return o, usageErrorf("--source is required")
		}
		if f.hashBatch < 1 || f.numHashFiles < 0 || f.versions < 0 {
			return o, usageErrorf("--hash-batch-size %d, --num-hash-files %d, --versions %d: want a positive size and counts of 0 (default) or more", f.hashBatch, f.numHashFiles, f.versions)
		}
	case f.against != "":
		if f.target.spec == "" {
			return o, usageErrorf("--target is required")
		}
		if f.rng.startRow != "" || f.rng.stopRow != "" || f.rng.startTime != "" || f.rng.endTime != "" || f.rng.families != "" {
			return o, usageErrorf("--against-hashtable takes the rows, times and families from the HashTable manifest, not from flags")
		}
	default:
		if f.source.spec == "" || f.target.spec == "" {
			return o, usageErrorf("--source and --target are required")
		}
	}
	if f.rng.table == "" && f.against == "" {
		return o, usageErrorf("--table is required")
	}
	var err error
	if f.source.spec != "" {
		if o.Source, err = f.source.config(); err != nil {
			return o, err
		}
	}
	if f.target.spec != "" {
		if o.Target, err = f.target.config(); err != nil {
			return o, err
		}
	}
	if f.rng.table != "" {
		spec, err := f.rng.spec()
		if err != nil {
			return o, err
		}
		if err := spec.Validate(); err != nil {
			return o, usageErrorf("%v", err)
		}
		o.Table, o.TargetTable, o.Rows, o.Time, o.Families = spec.Table, spec.TargetTable, spec.Rows, spec.Time, spec.Families
	} else {
		o.TargetTable = f.rng.targetTable
	}
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
	o.ReadAll = f.readAll
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
	if f.hashOut != "" {
		return runHashTableOut(ctx, f, o, stdout)
	}
	var rep verify.Report
	if f.against != "" {
		fs, dir, closeFS, err := hashTableDir(ctx, f.against, o)
		if err != nil {
			return err
		}
		defer closeFS()
		rep, err = verify.AgainstHashTable(ctx, o, fs, dir)
		if err != nil {
			return err
		}
	} else if rep, err = runVerifyJob(ctx, f, o, stderr); err != nil {
		return err
	}
	if f.repair && !rep.Equal() {
		o.Logger.Warn("verify: the tables differ; repairing the mismatched ranges", "batches_mismatched", rep.BatchesMismatched,
			"differences", rep.DifferenceCount, "ranges", len(rep.MismatchedRanges))
		copyOpts := master.Options{Source: o.Source, Target: o.Target, Workers: 4, RunOptions: job.RunOptions{Settings: job.Settings{Bandwidth: o.Bandwidth}, WorkRoot: f.workDir, User: o.User}, ZK: f.registry.servers(), ZKRoot: f.registry.zkRoot, Logger: o.Logger}
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

// runHashTableOut writes HashTable output of the source and prints what it
// wrote.
func runHashTableOut(ctx context.Context, f verifyFlags, o verify.Options, stdout io.Writer) error {
	fs, dir, closeFS, err := hashTableDir(ctx, f.hashOut, o)
	if err != nil {
		return err
	}
	defer closeFS()
	rep, err := verify.WriteHashTable(ctx, o, verify.HashTableOptions{BatchSize: f.hashBatch, NumHashFiles: f.numHashFiles, Versions: f.versions}, fs, dir)
	if err != nil {
		return err
	}
	if f.jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	_, err = fmt.Fprintf(stdout, "hashtable %s (%s) -> %s: %d batches in %d hash files, %d cells, %d rows, %d bytes read in %d ms\n",
		rep.Table, rep.SourceSnapshot, rep.Dir, rep.Batches, rep.NumHashFiles, rep.Cells, rep.Rows, rep.BytesRead, rep.ElapsedMs)
	return err
}

// hashTableDir resolves a HashTable folder: hdfs://namenode:port/path on
// the HDFS of whichever of o's clusters has that NameNode, else a local
// folder.
func hashTableDir(ctx context.Context, dir string, o verify.Options) (fsys.FS, string, func(), error) {
	if !strings.HasPrefix(dir, "hdfs://") {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, "", nil, fmt.Errorf("hash table folder %s: %w", dir, err)
		}
		return fsys.Local{}, filepath.ToSlash(abs), func() {}, nil
	}
	nns, p, err := cluster.ParseRootDir(dir, nil)
	if err != nil {
		return nil, "", nil, usageErrorf("hash table folder %s: %v", dir, err)
	}
	for _, c := range []cluster.Config{o.Target, o.Source} {
		if len(c.NameNodes) == 0 || !slices.Equal(c.NameNodes, nns) {
			continue
		}
		fs, err := dial.HDFS(ctx, c, o.User)
		if err != nil {
			return nil, "", nil, err
		}
		return fs, p, func() { fs.Close() }, nil
	}
	return nil, "", nil, usageErrorf("hash table folder %s: on neither cluster's HDFS (%v, %v)", dir, o.Target.NameNodes, o.Source.NameNodes)
}

// repairCopier copies one row range of o's selection with a one-process
// copy (inproc.Copy) configured by base.
func repairCopier(base master.Options, o verify.Options) verify.CopyFunc {
	return func(ctx context.Context, rng job.KeyRange) error {
		co := base
		co.Spec = job.Spec{Table: o.Table, TargetTable: o.TargetTable, Rows: rng, Time: o.Time, Families: o.Families}
		rep, err := inproc.Copy(ctx, inproc.Options{Options: co})
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

// runVerifyJob runs the comparison as a registry job (verify.Run with
// Options.Registry): the registry of --zk, else the target's quorum, as
// rangecopy copy's. Its progress (units done, bytes read) goes to stderr: a
// bar on a terminal, else a log line every 10 s (at -v).
func runVerifyJob(ctx context.Context, f verifyFlags, o verify.Options, stderr io.Writer) (verify.Report, error) {
	servers := f.registry.servers()
	if len(servers) == 0 {
		servers = o.Target.ZKQuorum
	}
	reg, err := openRegistry(ctx, registry.Config{Servers: servers, Root: f.registry.zkRoot, Logger: o.Logger.With("part", "registry")})
	if err != nil {
		return verify.Report{}, err
	}
	defer reg.Close()
	pr, interval := progressPrinter(stderr, o.Logger, "verify")
	o.Progress = &progress.Counters{}
	pctx, stop := context.WithCancel(ctx)
	shown := make(chan struct{})
	go func() {
		defer close(shown)
		progress.Run(pctx, o.Progress, time.Now(), interval, pr)
	}()
	o.Registry = reg
	rep, err := verify.Run(ctx, o)
	stop()
	<-shown
	return rep, err
}
