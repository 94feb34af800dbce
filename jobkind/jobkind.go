// Package jobkind is the plug-in point of a worker agent for jobs of kinds
// other than a copy (job.KindVerify: a verification's units). The agent
// (worker.RunAgent) finds the running jobs, claims their tasks and hands
// each claim to the Job a Server of the job's kind opened for it; a package
// that serves a kind (verify) implements Server without importing the
// worker.
package jobkind

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"rangecopy/fsys"
	"rangecopy/job"
	"rangecopy/registry"
)

// Server serves the tasks of running jobs of one kind.
type Server interface {
	// Open prepares serving one running job of the kind here: its
	// connections and whatever its tasks share.
	Open(ctx context.Context, env Env) (Job, error)
}

// Env is what a Server is given for one job.
type Env struct {
	// Registry holds the job; Job is its id and Record its decoded record.
	Registry *registry.Registry
	Job      string
	Record   job.Record
	// Worker is this worker's id.
	Worker string
	// Limiter is this worker's share of the job's read limit.
	Limiter fsys.Limiter
	// BytesRead, if set, counts the bytes the job's tasks read here, for
	// the metrics.
	BytesRead *atomic.Int64
	// DialTimeout bounds reaching a cluster.
	DialTimeout time.Duration
	// Logger receives the job's log.
	Logger *slog.Logger
}

// Job is one job served by a Server.
type Job interface {
	// Serve runs one claimed task of the job to its end: it records the
	// task done or failed, or releases it when ctx ends (its claim lost or
	// the job stopped running here) with its checkpoint kept.
	Serve(ctx context.Context, claim *registry.Claim)
	// Close ends serving the job; no task of it runs any more.
	Close()
}
