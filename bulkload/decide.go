package bulkload

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"rangecopy/hbase"
)

// Action is what a Loader does after a failed attempt to load a file.
type Action int

// Reactions to a failed load.
const (
	// ActionGiveUp returns the error: the table or family does not exist,
	// the file is bad, or the context is done.
	ActionGiveUp Action = iota
	// ActionRetry backs off and loads again into the same region.
	ActionRetry
	// ActionRelocate re-reads the table's regions from hbase:meta, backs off
	// and plans the file again: it is loaded into the region that holds it
	// now, or re-split when it spans several regions after a split or merge.
	ActionRelocate
	// ActionDiagnose follows loaded=false: the region server hid the cause,
	// so the Loader looks for it (family gone, file unreadable, region
	// changed) before it tries again.
	ActionDiagnose
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
	case ActionDiagnose:
		return "diagnose"
	}
	return fmt.Sprintf("Action(%d)", int(a))
}

// errStaleRegion reports that the Loader's view of the regions no longer fits
// a file: a hole, a region without a server, or a range check that failed.
type errStaleRegion struct{ msg string }

func (e *errStaleRegion) Error() string { return "stale region view: " + e.msg }

// ClassifyLoadError decides what follows a failed load attempt by its error. It is pure: no I/O, no
// state.
func ClassifyLoadError(err error) Action {
	if err == nil {
		return ActionGiveUp
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, hbase.ErrClosed) {
		return ActionGiveUp
	}
	// Not sent: the time the last claim check allowed had passed (a long
	// retry of the call, a pause of the process). The next attempt checks
	// the claim again (File.Fence) and is sent only if it still holds.
	if errors.Is(err, hbase.ErrSendTooLate) {
		return ActionRetry
	}
	// A split or merge first: the hbase client gives up on it itself, but for
	// us it means "plan the file again".
	if errors.Is(err, hbase.ErrRegionChanged) {
		return ActionRelocate
	}
	var stale *errStaleRegion
	if errors.As(err, &stale) {
		return ActionRelocate
	}
	for _, fatal := range []error{hbase.ErrTableNotFound, hbase.ErrNoSuchColumnFamily, hbase.ErrTableNotEnabled,
		hbase.ErrNamespaceNotFound, errBadFile} {
		if errors.Is(err, fatal) {
			return ActionGiveUp
		}
	}
	var nf *hbase.NotFoundError
	if errors.As(err, &nf) {
		return ActionGiveUp
	}
	var ble *hbase.BulkLoadError
	if errors.As(err, &ble) && ble.Err == nil {
		return ActionDiagnose
	}
	switch hbase.Classify(err) {
	case hbase.ActionRetry:
		return ActionRetry
	case hbase.ActionRelocate:
		return ActionRelocate
	}
	return ActionGiveUp
}

// regionsFor returns the regions of a table (sorted, covering every key)
// that hold rows in [first, last], both inclusive. It is pure.
func regionsFor(regions []*hbase.Region, first, last []byte) ([]*hbase.Region, error) {
	var out []*hbase.Region
	for _, r := range regions {
		if len(r.EndKey) > 0 && bytes.Compare(r.EndKey, first) <= 0 {
			continue // wholly before the file
		}
		if bytes.Compare(r.StartKey, last) > 0 {
			break // wholly after the file
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, &errStaleRegion{msg: fmt.Sprintf("no region holds rows [%q, %q]", first, last)}
	}
	if !out[0].Contains(first) || !out[len(out)-1].Contains(last) {
		return nil, &errStaleRegion{msg: fmt.Sprintf("regions %s..%s do not cover rows [%q, %q]", out[0], out[len(out)-1], first, last)}
	}
	for i := 1; i < len(out); i++ {
		if !bytes.Equal(out[i-1].EndKey, out[i].StartKey) {
			return nil, &errStaleRegion{msg: fmt.Sprintf("hole or overlap between regions %s and %s", out[i-1], out[i])}
		}
	}
	for _, r := range out {
		if r.Server.IsZero() || r.Offline {
			return nil, &errStaleRegion{msg: fmt.Sprintf("region %s is not open on any server", r)}
		}
	}
	return out, nil
}

// SplitKeys returns the region boundaries of a source table (the start keys
// of its regions, in any order, the empty first one included or not) that lie
// strictly inside the copied range [start, end), sorted and without
// duplicates: where a created target table is pre-split. An empty end means
// the end of the table.
func SplitKeys(boundaries [][]byte, start, end []byte) [][]byte {
	var out [][]byte
	for _, b := range boundaries {
		if len(b) == 0 || bytes.Compare(b, start) <= 0 || (len(end) > 0 && bytes.Compare(b, end) >= 0) {
			continue
		}
		out = append(out, bytes.Clone(b))
	}
	slices.SortFunc(out, bytes.Compare)
	dedup := out[:0]
	for i, k := range out {
		if i == 0 || !bytes.Equal(k, out[i-1]) {
			dedup = append(dedup, k)
		}
	}
	if len(dedup) == 0 {
		return nil
	}
	return dedup
}
