package worker

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"rangecopy/checkpoint"
	"rangecopy/hbase"
	"rangecopy/job"
	"rangecopy/registry"
)

func TestRunAgain(t *testing.T) {
	passing := errors.New("read block: connection reset")
	tests := []struct {
		name              string
		err               error
		attempt, attempts int
		stopped, lost     bool
		want              bool
	}{
		{"done", nil, 1, 3, false, false, false},
		{"passing failure", passing, 1, 3, false, false, true},
		{"passing failure, second attempt", passing, 2, 3, false, false, true},
		{"attempts used up", passing, 3, 3, false, false, false},
		{"one attempt only", passing, 1, 1, false, false, false},
		{"attempts not set", passing, 1, 0, false, false, false},
		{"stopped from outside", passing, 1, 3, true, false, false},
		{"stopped, error is the context's", context.Canceled, 1, 3, true, false, false},
		{"claim lost", passing, 1, 3, false, true, false},
		{"claim lost by the error", fmt.Errorf("save checkpoint: %w", registry.ErrLostClaim), 1, 3, false, false, false},
		{"bad spec", fmt.Errorf("task t1: %w", job.ErrTaskSpec), 1, 3, false, false, false},
		{"bad checkpoint", fmt.Errorf("task t1: %w", checkpoint.ErrFormat), 1, 3, false, false, false},
		{"target table gone", fmt.Errorf("load: %w", hbase.ErrTableNotFound), 1, 3, false, false, false},
		{"target family gone", fmt.Errorf("load: %w", hbase.ErrNoSuchColumnFamily), 1, 3, false, false, false},
		{"failed load", &bulkloadErr{passing}, 1, 3, false, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := runAgain(tt.err, tt.attempt, tt.attempts, tt.stopped, tt.lost); got != tt.want {
				t.Errorf("runAgain(%v, %d, %d, stopped=%v, lost=%v) = %v, want %v",
					tt.err, tt.attempt, tt.attempts, tt.stopped, tt.lost, got, tt.want)
			}
		})
	}
}

// bulkloadErr wraps a cause the way a load failure past the loader's own
// retries does.
type bulkloadErr struct{ err error }

func (e *bulkloadErr) Error() string { return "bulk load: " + e.err.Error() }
func (e *bulkloadErr) Unwrap() error { return e.err }

func TestSaveAgain(t *testing.T) {
	tests := []struct {
		name string
		err  error
		try  int
		want bool
	}{
		{"saved", nil, 1, false},
		{"connection lost", zk.ErrConnectionClosed, 1, true},
		{"no server, fifth try", fmt.Errorf("save: %w", zk.ErrNoServer), 5, true},
		{"tries used up", zk.ErrConnectionClosed, checkpointSaves, false},
		{"claim lost", registry.ErrLostClaim, 1, false},
		{"too large", registry.ErrTooLarge, 1, false},
		{"context ended", context.DeadlineExceeded, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := saveAgain(tt.err, tt.try); got != tt.want {
				t.Errorf("saveAgain(%v, %d) = %v, want %v", tt.err, tt.try, got, tt.want)
			}
		})
	}
}

func TestWorkerBackoffs(t *testing.T) {
	s := time.Second
	for _, tt := range []struct {
		name  string
		delay func(int) time.Duration
		want  []time.Duration
	}{
		{"task attempts", attemptBackoff().Delay, []time.Duration{4 * s, 8 * s, 16 * s, 32 * s, time.Minute, time.Minute}},
		{"checkpoint saves", checkpointBackoff().Delay, []time.Duration{s / 2, s, 2 * s, 2 * s, 2 * s}},
	} {
		for i, w := range tt.want {
			if got := tt.delay(i); got != w {
				t.Errorf("%s: wait before retry %d = %v, want %v", tt.name, i+1, got, w)
			}
		}
	}
}
