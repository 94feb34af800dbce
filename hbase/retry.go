package hbase

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"rangecopy/retry"
)

// Action is what to do after a failed call.
type Action int

// Reactions to a failed call.
const (
	// ActionGiveUp returns the error to the caller.
	ActionGiveUp Action = iota
	// ActionRetry backs off and sends the call again to the same region and
	// server.
	ActionRetry
	// ActionRelocate drops the cached location of the region (or server),
	// looks it up again and resends, possibly to another server.
	ActionRelocate
)

// String returns the action's name.
func (a Action) String() string {
	switch a {
	case ActionGiveUp:
		return "give up"
	case ActionRetry:
		return "retry"
	case ActionRelocate:
		return "relocate"
	}
	return fmt.Sprintf("Action(%d)", int(a))
}

// Classify decides how to react to err. It is pure: no I/O, no state.
func Classify(err error) Action {
	if err == nil {
		return ActionGiveUp
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrClosed) {
		return ActionGiveUp
	}
	var nf *NotFoundError
	if errors.As(err, &nf) {
		return ActionGiveUp
	}
	var re *RemoteError
	if errors.As(err, &re) {
		switch re.Kind {
		case KindNotServingRegion, KindRegionMoved, KindRegionServerStopped:
			return ActionRelocate
		case KindRegionOpening, KindRegionTooBusy, KindServerNotRunningYet, KindCallQueueTooBig,
			KindPleaseHold, KindRetryImmediately, KindThrottling:
			return ActionRetry
		case KindTableNotFound, KindTableNotEnabled, KindTableNotDisabled, KindTableExists,
			KindNoSuchColumnFamily, KindNamespaceNotFound, KindSnapshotNotFound, KindUnknownScanner,
			KindOutOfOrderScannerNext, KindSnapshotFailed, KindDoNotRetryIO:
			return ActionGiveUp
		}
		if re.DoNotRetry {
			return ActionGiveUp
		}
		if re.Class == "java.io.IOException" && strings.Contains(re.StackTrace, "Cannot append; log is closed") {
			return ActionRelocate
		}
		return ActionRetry
	}
	var ce *ConnError
	var te *CallTimeoutError
	if errors.As(err, &ce) || errors.As(err, &te) {
		return ActionRelocate
	}
	var le *locateError
	if errors.As(err, &le) {
		return ActionRelocate
	}
	var rt *retryableError
	if errors.As(err, &rt) {
		return ActionRetry
	}
	return ActionGiveUp
}

// retryLoop runs op until it succeeds, Classify says ActionGiveUp, the attempts are
// used up or ctx is done. onRelocate runs before an ActionRelocate retry. The last
// error is returned, wrapped with the number of attempts when they ran out.
func (c *Client) retryLoop(ctx context.Context, what string, op func(attempt int) error, onRelocate func(err error)) error {
	var err error
	for attempt := 0; ; attempt++ {
		err = op(attempt)
		if err == nil {
			return nil
		}
		act := Classify(err)
		if act == ActionGiveUp {
			return err
		}
		if attempt+1 >= c.cfg.MaxAttempts {
			return fmt.Errorf("%s: giving up after %d attempts: %w", what, attempt+1, err)
		}
		if act == ActionRelocate && onRelocate != nil {
			onRelocate(err)
		}
		d := c.cfg.Backoff.Delay(attempt)
		c.log.Debug("hbase: retrying", "op", what, "attempt", attempt+1, "action", act.String(), "delay", d, "err", err)
		if serr := retry.Sleep(ctx, d); serr != nil {
			return fmt.Errorf("%s: %w (last error: %v)", what, serr, err)
		}
	}
}
