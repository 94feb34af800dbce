package master

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"rangecopy/hbase"
)

func TestPinRetry(t *testing.T) {
	failed := fmt.Errorf("snapshot s of table t: %w", &hbase.RemoteError{Kind: hbase.KindSnapshotFailed,
		Class: "org.apache.hadoop.hbase.snapshot.HBaseSnapshotException", Message: "had an error"})
	gone := fmt.Errorf("snapshot s of table t: region server x is gone: %w", hbase.ErrSnapshotFailed)
	for _, tc := range []struct {
		name    string
		err     error
		attempt int
		want    bool
		wait    time.Duration
	}{
		{"the master failed the first snapshot", failed, 0, true, 15 * time.Second},
		{"a server the snapshot waited on is gone", gone, 0, true, 15 * time.Second},
		{"the third fails", failed, 2, true, time.Minute},
		{"the fourth fails", failed, 3, true, 2 * time.Minute},
		{"the fifth fails", failed, 4, true, 2 * time.Minute},
		{"the last allowed fails", failed, PinAttempts - 1, false, 0},
		{"the table is gone", fmt.Errorf("pin: %w", &hbase.NotFoundError{Kind: hbase.KindTableNotFound, What: "table", Name: "t"}), 0, false, 0},
		{"the copy was stopped", fmt.Errorf("waiting: %w", context.Canceled), 0, false, 0},
		{"a snapshot failure seen as the copy stops", errors.Join(gone, context.Canceled), 0, false, 0},
		{"an unreadable snapshot", errors.New("snapshot s: manifest: corrupt"), 0, false, 0},
		{"no error", nil, 0, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, wait := PinRetry(tc.err, tc.attempt)
			if got != tc.want || wait != tc.wait {
				t.Errorf("PinRetry(%v, %d) = %v, %s; want %v, %s", tc.err, tc.attempt, got, wait, tc.want, tc.wait)
			}
		})
	}
}

// TestPinBackoffOutlastsSnapshotTimeout checks that the waits before the
// last snapshot add up to more than HBase's default master snapshot timeout
// (hbase.snapshot.master.timeout.millis, 300 s), so that an older master's
// snapshot stuck on a dead server has timed out before the last try.
func TestPinBackoffOutlastsSnapshotTimeout(t *testing.T) {
	var total time.Duration
	for attempt := 0; ; attempt++ {
		again, wait := PinRetry(hbase.ErrSnapshotFailed, attempt)
		if !again {
			break
		}
		total += wait
	}
	if total <= 300*time.Second {
		t.Errorf("the waits before the last snapshot add up to %s, not more than the master's 300 s snapshot timeout", total)
	}
}

func TestPinName(t *testing.T) {
	for attempt, want := range []string{"rangecopy-j-1", "rangecopy-j-1-r1", "rangecopy-j-1-r2"} {
		if got := PinName("rangecopy-j-1", attempt); got != want {
			t.Errorf("PinName(%d) = %q, want %q", attempt, got, want)
		}
	}
}
