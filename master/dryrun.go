package master

import (
	"context"
	"fmt"
	"io"
	"time"

	"rangecopy/job"
	"rangecopy/progress"
	"rangecopy/snapshot"
)

// DryRun pins the source under a throw-away snapshot (or live, for a job
// that pins live: job.PinLive), plans, prints the plan to Options.Out and
// deletes the snapshot. Nothing is registered, created or loaded.
func (p *Planner) DryRun(ctx context.Context) error {
	o := p.o
	id := JobID(o.Source, o.Target, o.Spec)
	var pd *snapshot.Pinned
	var err error
	if o.Pin.Live() {
		if pd, err = p.pinLive(ctx); err != nil {
			return err
		}
	} else {
		name := fmt.Sprintf("%s-dryrun-%d", SnapshotName(id), time.Now().UnixMilli())
		pd, err = snapshot.Pin(ctx, p.src, p.srcFS, o.Source.RootDir, o.Spec.Table, name, p.snapshotOptions())
		defer func() {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
			defer cancel()
			if err := snapshot.Release(rctx, p.src, name); err != nil {
				p.log.Warn("delete the dry run's snapshot", "snapshot", name, "err", err)
			}
		}()
		if err != nil {
			return fmt.Errorf("pin source table %s: %w", o.Spec.Table, err)
		}
	}
	plan, err := job.Make(o.Spec, pd.Regions, pd.Files, job.PlanOptions{TaskBytes: o.TaskBytes, Slots: p.slots(ctx), SkipEmpty: true})
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	target := "exists"
	if !p.tgtExists {
		target = "would be created"
	}
	return WritePlan(o.Out, id, o.Spec, target, len(pd.Regions), plan)
}

// WritePlan prints a plan for a person: the job, each task with its range,
// input files and bytes, the fast-path candidates (job.Task.FastPathCandidate;
// the target's regions decide at run time) and the files pruned, by reason.
func WritePlan(w io.Writer, id string, s job.Spec, target string, regions int, plan job.Plan) error {
	ew := &errWriter{w: w}
	ew.printf("dry run of job %s: nothing is registered, created or loaded\n", id)
	ew.printf("source table %s, %s, %s, target table %s (%s)\n", s.Table, s.Rows, s.Times(), s.Target(), target)
	regionsIn := map[string]bool{}
	files, fast := 0, 0
	var fileBytes int64
	for _, t := range plan.Tasks {
		regionsIn[t.Region] = true
		ew.printf("task %s  rows %s  files %d  bytes %s\n", t.ID, t.Rows, len(t.Files), progress.Bytes(t.Bytes))
		for _, f := range t.Files {
			files++
			fileBytes += f.Size
			mark := ""
			if t.FastPathCandidate(f, s.Times()) {
				fast++
				mark = "  fast-path candidate"
			}
			ew.printf("  %s/%s  %s  rows [%s, %s]%s\n", f.Family, f.Name, progress.Bytes(f.Size), job.FormatKey(f.FirstRow), job.FormatKey(f.LastRow), mark)
		}
	}
	byReason := map[job.PruneReason]int{}
	for _, p := range plan.Pruned {
		byReason[p.Reason]++
		ew.printf("pruned %s/%s (%s): %s\n", p.File.Family, p.File.Name, progress.Bytes(p.File.Size), p.Reason)
	}
	ew.printf("plan: %d of %d regions in range, %d tasks, %d input files (%s on disk, about %s in range), %d fast-path candidates, %d files pruned (%d by time, %d by rows)\n",
		len(regionsIn), regions, len(plan.Tasks), files, progress.Bytes(fileBytes), progress.Bytes(plan.Bytes), fast,
		len(plan.Pruned), byReason[job.PrunedByTime], byReason[job.PrunedByRows])
	return ew.err
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
