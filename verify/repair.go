package verify

import (
	"context"
	"fmt"

	"rangecopy/job"
	"rangecopy/rowkey"
)

// CopyFunc copies the rows rng of o's selection (its families and time
// range) from the source to the target, the way rangecopy copy does:
// reading the source's files and bulk loading new ones into the target.
type CopyFunc func(ctx context.Context, rng job.KeyRange) error

// Repair re-copies every mismatched range of rep with copyRange, then
// verifies those ranges again (new snapshots of both sides, the same
// batches) and returns that report, with Repaired listing the ranges
// copied.
//
// A re-copy adds the source's cells to the target with a new sequence id,
// so it repairs cells the target lacks (a file not loaded, a cell dropped)
// and values the target holds under the same key (the re-copied cell wins).
// It cannot remove what the target has in excess: cells the source lacks,
// and delete markers written on the target, which mask the re-copied puts
// of their timestamps whatever their sequence id (HBase's default delete
// semantics). Those differences stay in the new report.
func Repair(ctx context.Context, o Options, rep Report, copyRange CopyFunc) (Report, error) {
	ranges, err := rep.MismatchedKeyRanges()
	if err != nil {
		return rep, err
	}
	if len(ranges) == 0 {
		return rep, nil
	}
	var repaired []Range
	for _, r := range ranges {
		if err := copyRange(ctx, r); err != nil {
			return rep, fmt.Errorf("verify: repair rows %s: %w", r, err)
		}
		repaired = append(repaired, Range{StartRow: rowkey.Format(r.Start), StopRow: rowkey.Format(r.End)})
	}
	// The re-check reads only the repaired ranges' batches: it runs in this
	// process, not as a registry job.
	o.Only, o.Registry, o.LeaveUnits, o.Progress = ranges, nil, false, nil
	again, err := Run(ctx, o)
	if err != nil {
		return rep, fmt.Errorf("verify: check the repaired ranges: %w", err)
	}
	again.Repaired = repaired
	return again, nil
}
