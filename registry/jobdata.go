package registry

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/go-zookeeper/zk"
)

// Side nodes of a job, written by its planner and its leading master.
const (
	// NodeReport holds the job's report: its progress while it runs, its
	// final report once it ends.
	NodeReport = "report"
	// NodeRetries holds how often each failed task was reset.
	NodeRetries = "retries"
	// NodeOrder holds the ids of the job's costliest tasks, costliest
	// first: workers claim those before any other.
	NodeOrder = "order"
	// NodePin holds which snapshot pins the job's inputs when it is not the
	// one its record names (that one failed and was taken again under a
	// new name), with the names and errors of the failed ones.
	NodePin = "pin"
	// NodePlan holds the plan's totals (tasks, input bytes, files pruned),
	// written by the planner before the job runs.
	NodePlan = "plan"
	// NodeBandwidth holds the job-wide read limit an operator set while
	// the job runs (SetBandwidth); it overrides the record's bandwidth.
	NodeBandwidth = "bandwidth"
	// NodeVerification holds a verification job's report (JSON), written
	// by the process that finished it.
	NodeVerification = "verification"
	// NodeCleanup is set (non-empty) while a job marked done still has its snapshot
	// released and its work folder removed to come: its leading master marks it done first
	// and cleans up after, clearing the node; a leader that finds it set on a done job (the
	// one before died in between) cleans up.
	NodeCleanup = "cleanup"
)

var sideNodes = []string{NodeReport, NodeRetries, NodeOrder, NodePin, NodePlan, NodeBandwidth, NodeVerification, NodeCleanup}

func checkSide(job, name string) error {
	if err := ValidateJobID(job); err != nil {
		return fmt.Errorf("registry: job: %w", err)
	}
	if !slices.Contains(sideNodes, name) {
		return fmt.Errorf("registry: job %s: unknown side node %q", job, name)
	}
	return nil
}

// PutJobData writes a side node of a job (NodeReport, NodeRetries), creating
// it if missing. The job must exist; the data is bounded by MaxSpec.
func (r *Registry) PutJobData(ctx context.Context, job, name string, b []byte) error {
	if err := checkSide(job, name); err != nil {
		return err
	}
	if len(b) > MaxSpec {
		return fmt.Errorf("registry: job %s: %s of %d bytes: %w (max %d)", job, name, len(b), ErrTooLarge, MaxSpec)
	}
	if err := r.alive(ctx); err != nil {
		return err
	}
	p := r.p.job(job) + "/" + name
	_, err := r.conn.Set(p, b, -1)
	if errors.Is(err, zk.ErrNoNode) {
		_, err = r.conn.Create(p, b, 0, openACL)
		if errors.Is(err, zk.ErrNodeExists) {
			_, err = r.conn.Set(p, b, -1)
		}
	}
	if err != nil {
		return notFound(err, "job %s: write %s", job, name)
	}
	return nil
}

// JobData reads a side node of a job; one never written reads as nil.
func (r *Registry) JobData(ctx context.Context, job, name string) ([]byte, error) {
	if err := checkSide(job, name); err != nil {
		return nil, err
	}
	if err := r.alive(ctx); err != nil {
		return nil, err
	}
	b, _, err := r.conn.Get(r.p.job(job) + "/" + name)
	if errors.Is(err, zk.ErrNoNode) {
		if _, jerr := r.Job(ctx, job); jerr != nil {
			return nil, jerr
		}
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("registry: job %s: read %s: %w", job, name, err)
	}
	return b, nil
}

// TasksWith lists, sorted, the tasks of a job that have a result of the given
// status (StatusDone or StatusFailed) or a claim (StatusClaimed).
func (r *Registry) TasksWith(ctx context.Context, job string, s Status) ([]string, error) {
	return r.TasksWithIn(ctx, job, s, nil)
}

// TasksWithIn is TasksWith over the given buckets only (nil: every bucket):
// for a job whose tasks all lie in them (TaskBuckets), the same list for a
// few calls instead of 256.
func (r *Registry) TasksWithIn(ctx context.Context, job string, s Status, buckets []int) ([]string, error) {
	kind := ""
	switch s {
	case StatusDone:
		kind = kindDone
	case StatusFailed:
		kind = kindFailed
	case StatusClaimed:
		kind = kindClaims
	default:
		return nil, fmt.Errorf("registry: job %s: tasks with status %v cannot be listed", job, s)
	}
	return r.listFlat(ctx, job, kind, buckets)
}

// CheckpointedTasks lists, sorted, the tasks of a job that saved a
// checkpoint: done ones, and held or released ones that loaded something.
func (r *Registry) CheckpointedTasks(ctx context.Context, job string) ([]string, error) {
	return r.CheckpointedTasksIn(ctx, job, nil)
}

// CheckpointedTasksIn is CheckpointedTasks over the given buckets only (nil:
// every bucket).
func (r *Registry) CheckpointedTasksIn(ctx context.Context, job string, buckets []int) ([]string, error) {
	return r.listFlat(ctx, job, kindCheckpoints, buckets)
}

// listFlat lists the ids of one kind in the given buckets (nil: all), sorted.
func (r *Registry) listFlat(ctx context.Context, job, kind string, buckets []int) ([]string, error) {
	if buckets == nil {
		buckets = allBuckets()
	}
	lists, err := r.listIn(ctx, job, kind, buckets)
	if err != nil {
		return nil, err
	}
	out := slices.Concat(lists...)
	slices.Sort(out)
	return out, nil
}

// ClaimHolders returns the worker holding each claimed task of a job, by task id. A claim
// released while it is read is left out.
func (r *Registry) ClaimHolders(ctx context.Context, job string) (map[string]string, error) {
	tasks, err := r.TasksWith(ctx, job, StatusClaimed)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(tasks))
	for _, t := range tasks {
		if err := r.alive(ctx); err != nil {
			return nil, err
		}
		b, _, err := r.conn.Get(r.p.claim(job, t))
		if errors.Is(err, zk.ErrNoNode) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("registry: job %s: claim of %s: %w", job, t, err)
		}
		c, err := decodeClaimRecord(b)
		if err != nil {
			return nil, fmt.Errorf("registry: job %s: claim of %s: %w", job, t, err)
		}
		out[t] = c.Worker
	}
	return out, nil
}
