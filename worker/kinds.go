package worker

import (
	"context"
	"log/slog"
	"time"

	"rangecopy/fsys"
	"rangecopy/job"
	"rangecopy/registry"
)

// KindServer serves the tasks of running jobs of one kind other than a copy
// (job.KindVerify: a verification's units) for RunAgent, which finds the jobs,
// claims their tasks and hands each claim to the job's KindJob. It lets a
// package that itself uses worker (verify) plug its tasks into the agent.
type KindServer interface {
	// Open prepares serving one running job of the kind here: its
	// connections and whatever its tasks share.
	Open(ctx context.Context, env KindEnv) (KindJob, error)
}

// KindEnv is what a KindServer is given for one job.
type KindEnv struct {
	// Registry holds the job; Job is its id and Record its decoded record.
	Registry *registry.Registry
	Job      string
	Record   job.Record
	// Worker is this worker's id.
	Worker string
	// Limiter is this worker's share of the job's read limit.
	Limiter fsys.Limiter
	// Counters count what the job's tasks read here, for the metrics.
	Counters *Counters
	// DialTimeout bounds reaching a cluster.
	DialTimeout time.Duration
	// Logger receives the job's log.
	Logger *slog.Logger
}

// KindJob is one job served by a KindServer.
type KindJob interface {
	// Serve runs one claimed task of the job to its end: it records the
	// task done or failed, or releases it when ctx ends (its claim lost or
	// the job stopped running here) with its checkpoint kept.
	Serve(ctx context.Context, claim *registry.Claim)
	// Close ends serving the job; no task of it runs any more.
	Close()
}

// servedBy says whether a worker serves a job, and how: a copy when it was
// submitted for the workers (rangecopy copy --detach; a copy run by one
// rangecopy copy process is left to it), any other kind when one of kinds
// serves it, whoever submitted it. A record that does not decode is not
// served. Pure.
func servedBy(rec job.Record, decodeErr error, kinds map[string]KindServer) (served bool, ks KindServer) {
	if decodeErr != nil {
		return false, nil
	}
	if rec.IsCopy() {
		return rec.Options.Detached, nil
	}
	ks, ok := kinds[rec.Kind]
	return ok && ks != nil, ks
}
