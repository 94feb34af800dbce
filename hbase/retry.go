package hbase

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// Action is what to do after a failed call.
type Action int

// Reactions to a failed call.
const (
	// GiveUp returns the error to the caller.
	GiveUp Action = iota
	// Retry backs off and sends the call again to the same region and server.
	Retry
	// Relocate drops the cached location of the region (or server), looks it
	// up again and resends, possibly to another server.
	Relocate
)

// String returns the action's name.
func (a Action) String() string {
	switch a {
	case GiveUp:
		return "GiveUp"
	case Retry:
		return "Retry"
	case Relocate:
		return "Relocate"
	}
	return fmt.Sprintf("Action(%d)", int(a))
}

// Classify decides how to react to err. It is pure: no I/O, no state.
func Classify(err error) Action {
	if err == nil {
		return GiveUp
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrClosed) {
		return GiveUp
	}
	var nf *NotFoundError
	if errors.As(err, &nf) {
		return GiveUp
	}
	var re *RemoteError
	if errors.As(err, &re) {
		switch re.Kind {
		case KindNotServingRegion, KindRegionMoved, KindRegionServerStopped:
			return Relocate
		case KindRegionOpening, KindRegionTooBusy, KindServerNotRunningYet, KindCallQueueTooBig,
			KindPleaseHold, KindRetryImmediately, KindThrottling:
			return Retry
		case KindTableNotFound, KindTableNotEnabled, KindTableNotDisabled, KindTableExists,
			KindNoSuchColumnFamily, KindNamespaceNotFound, KindSnapshotNotFound, KindUnknownScanner,
			KindOutOfOrderScannerNext, KindSnapshotFailed, KindDoNotRetryIO:
			return GiveUp
		}
		if re.DoNotRetry {
			return GiveUp
		}
		if re.Class == "java.io.IOException" && strings.Contains(re.StackTrace, "Cannot append; log is closed") {
			return Relocate
		}
		return Retry
	}
	var ce *ConnError
	if errors.As(err, &ce) {
		return Relocate
	}
	var le *locateError
	if errors.As(err, &le) {
		return Relocate
	}
	var rt *retryableError
	if errors.As(err, &rt) {
		return Retry
	}
	return GiveUp
}

// Backoff is a capped exponential backoff with jitter: attempt n waits a
// random time in [d/2, d] where d = min(Max, Base*2^n).
type Backoff struct {
	Base time.Duration
	Max  time.Duration
}

// DefaultBackoff starts at 100ms and is capped at 5s.
var defaultBackoff = Backoff{Base: 100 * time.Millisecond, Max: 5 * time.Second}

// Delay returns the wait before retry number attempt (0-based). jitter is a
// number in [0, 1), normally from a random source.
func (b Backoff) Delay(attempt int, jitter float64) time.Duration {
	base, max := b.Base, b.Max
	if base <= 0 {
		base = defaultBackoff.Base
	}
	if max < base {
		max = base
	}
	d := base
	for i := 0; i < attempt && d < max; i++ {
		d *= 2
	}
	if d > max {
		d = max
	}
	if jitter < 0 {
		jitter = 0
	} else if jitter >= 1 {
		jitter = 0.999999
	}
	return d/2 + time.Duration(float64(d/2)*jitter)
}

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// retryLoop runs op until it succeeds, Classify says GiveUp, the attempts are
// used up or ctx is done. onRelocate runs before a Relocate retry. The last
// error is returned, wrapped with the number of attempts when they ran out.
func (c *Client) retryLoop(ctx context.Context, what string, op func(attempt int) error, onRelocate func(err error)) error {
	var err error
	for attempt := 0; ; attempt++ {
		err = op(attempt)
		if err == nil {
			return nil
		}
		act := Classify(err)
		if act == GiveUp {
			return err
		}
		if attempt+1 >= c.cfg.MaxAttempts {
			return fmt.Errorf("%s: giving up after %d attempts: %w", what, attempt+1, err)
		}
		if act == Relocate && onRelocate != nil {
			onRelocate(err)
		}
		d := c.cfg.Backoff.Delay(attempt, rand.Float64())
		c.log.Debug("hbase: retrying", "op", what, "attempt", attempt+1, "action", act.String(), "delay", d, "err", err)
		if serr := sleep(ctx, d); serr != nil {
			return fmt.Errorf("%s: %w (last error: %v)", what, serr, err)
		}
	}
}
