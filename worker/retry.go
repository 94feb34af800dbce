package worker

import (
	"errors"
	"time"

	"rangecopy/checkpoint"
	"rangecopy/hbase"
	"rangecopy/job"
	"rangecopy/memory"
	"rangecopy/registry"
	"rangecopy/retry"
)

// attemptBackoff is the wait before a claimed task runs again from its
// checkpoint, by the number of attempts that failed before minus one: 4 s
// doubling to 1 minute.
func attemptBackoff() retry.Backoff {
	return retry.Backoff{Initial: 4 * time.Second, Max: time.Minute}
}

// checkpointBackoff is the wait before a checkpoint save that failed for a
// passing reason is tried again: 500 ms doubling to 2 s.
func checkpointBackoff() retry.Backoff {
	return retry.Backoff{Initial: 500 * time.Millisecond, Max: 2 * time.Second}
}

// checkpointSaves bounds the tries of one checkpoint save.
const checkpointSaves = 6

// runAgain decides whether a claimed task runs again from its checkpoint
// after its attempt number attempt (1-based) of attempts ended with err.
// stopped says the task's context is done (the job paused or cancelled, the
// worker stopping, the claim lost); claimLost that the registry said the
// claim is gone. A task runs again only after a failure that another run may
// get past: not a bad spec or checkpoint, not a missing target table or
// family. It is pure.
func runAgain(err error, attempt, attempts int, stopped, claimLost bool) bool {
	switch {
	case err == nil, stopped, claimLost, attempt >= attempts:
		return false
	case errors.Is(err, registry.ErrLostClaim),
		errors.Is(err, job.ErrTaskSpec), errors.Is(err, checkpoint.ErrFormat),
		errors.Is(err, hbase.ErrTableNotFound), errors.Is(err, hbase.ErrNoSuchColumnFamily),
		errors.Is(err, memory.ErrTooSmall):
		return false
	}
	return true
}

// saveAgain decides whether a checkpoint save, try number try (1-based),
// that ended with err is tried again: only a passing registry failure, and
// at most checkpointSaves tries. It is pure.
func saveAgain(err error, try int) bool {
	return err != nil && try < checkpointSaves && registry.Classify(err) == registry.ActionRetry
}
