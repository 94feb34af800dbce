package master

import (
	"io"
	"log/slog"
	"time"

	"rangecopy/bulkload"
	"rangecopy/cluster"
	"rangecopy/cluster/dial"
	"rangecopy/hbase"
	"rangecopy/job"
	"rangecopy/registry"
	"rangecopy/snapshot"
)

// DefaultDialTimeout bounds reaching a cluster (or the registry) the first
// time, so an unreachable one is reported rather than waited for.
const DefaultDialTimeout = 30 * time.Second

// Options are a copy as an operator asks for it.
type Options struct {
	// Source and Target say how to reach the clusters; both need their
	// HDFS (NameNodes and RootDir).
	Source, Target cluster.Config
	// Spec is what to copy.
	Spec job.Spec
	// RunOptions are the job's settings (job.Settings: bandwidth, task size,
	// create table, keep snapshot, retries, source protection, pin mode) and
	// where and as whom it writes: the options its registry record keeps.
	// An empty WorkRoot means bulkload.DefaultRoot(User), an empty User
	// hbase.DefaultUser. Detached is set by Submit.
	job.RunOptions
	// Workers is how many tasks run at once in the process that runs the
	// job (inproc.Copy), and so the slots a plan is cut for; 0 means 4.
	Workers int
	// LiveMaxBytes is the largest plan a live pin is kept for; 0 means
	// job.LiveMaxBytes. (A leading master plans a registered job with the
	// default.)
	LiveMaxBytes int64
	// DryRun plans the job and prints the plan to Out; nothing is registered,
	// created or loaded (the snapshot taken to plan is deleted).
	DryRun bool
	// Resume names the job to go on with; empty means the job derived from
	// the request (JobID), resumed when unfinished.
	Resume string
	// ZK lists the registry's ZooKeeper servers; empty means the target's
	// quorum. ZKRoot is the registry root; empty means registry.DefaultRoot.
	ZK     []string
	ZKRoot string
	// DialTimeout bounds reaching each cluster; 0 means DefaultDialTimeout.
	DialTimeout time.Duration
	// LoadRetryFor bounds how long the loads of one file may keep failing
	// before its task's attempt fails; 0 means bulkload.DefaultRetryFor.
	LoadRetryFor time.Duration
	// Pool, when set, lends the connections to both clusters (and takes them
	// back at Close) instead of dialling them for this job alone.
	Pool *dial.Pool
	// Facts, when set, keeps the source's store files' facts across the pins
	// of the process (snapshot.FactsCache): a warm server's next window reads
	// only the new files.
	Facts *snapshot.FactsCache
	// Logger receives the job's log; nil discards.
	Logger *slog.Logger
	// Out receives the dry run's plan; nil discards.
	Out io.Writer
}

func (o *Options) defaults() {
	if o.Workers <= 0 {
		o.Workers = 4
	}
	if o.LiveMaxBytes <= 0 {
		o.LiveMaxBytes = job.LiveMaxBytes
	}
	if o.DialTimeout <= 0 {
		o.DialTimeout = DefaultDialTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.User == "" {
		o.User = hbase.DefaultUser()
	}
	if len(o.ZK) == 0 {
		o.ZK = o.Target.ZKQuorum
	}
	if o.ZKRoot == "" {
		o.ZKRoot = registry.DefaultRoot
	}
	if o.WorkRoot == "" {
		o.WorkRoot = bulkload.DefaultRoot(o.User)
	}
}
