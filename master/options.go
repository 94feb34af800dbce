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
	// Workers is how many tasks run at once in the process that runs the
	// job (local.Copy), and so the slots a plan is cut for; 0 means 4.
	Workers int
	// Bandwidth caps the bytes read per second, job-wide; 0 means no cap.
	Bandwidth float64
	// ProtectSource, when set, throttles the copy to keep the source's read
	// p99 at its target (throttle/); Bandwidth is then its ceiling.
	ProtectSource job.Protect
	// CreateTable creates a missing target table, pre-split at the source's
	// region boundaries inside the range.
	CreateTable bool
	// KeepSnapshot keeps the source snapshot when the job is done.
	KeepSnapshot bool
	// Pin is how the planning pins the source's inputs (job.PinMode); the
	// zero value takes a snapshot.
	Pin job.PinMode
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
	// WorkRoot is the parent of job work folders on the target HDFS; empty
	// means bulkload.DefaultRoot(User).
	WorkRoot string
	// User is the HBase effective user and the HDFS user; empty means
	// hbase.DefaultUser.
	User string
	// TaskBytes is the input size a task aims at; 0 means job.DefaultTaskBytes.
	TaskBytes int64
	// Retries bounds how often a leading master resets a failed task of a
	// detached job (Submit); 0 means job.DefaultRetries.
	Retries int
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
