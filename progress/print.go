package progress

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"rangecopy/job"
)

// Printer shows samples as they come and the last one when the job ends.
type Printer interface {
	Update(s Sample)
	Finish(s Sample)
}

// Run samples c every interval from start until ctx ends, computing rates,
// and hands each sample to p; then it takes a last sample for p.Finish and
// returns it.
func Run(ctx context.Context, c *Counters, start time.Time, interval time.Duration, p Printer) Sample {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	var prev *Sample
	for {
		select {
		case <-ctx.Done():
			s := Rates(prev, c.Take(time.Now(), start))
			p.Finish(s)
			return s
		case now := <-tick.C:
			s := Rates(prev, c.Take(now, start))
			p.Update(s)
			prev = &s
		}
	}
}

// Line is the one-line summary both printers use.
func Line(s Sample) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s", Bytes(s.BytesRead))
	if s.BytesTotal > 0 {
		fmt.Fprintf(&b, " of %s", Bytes(s.BytesTotal))
	}
	fmt.Fprintf(&b, ", %s/s, tasks %d/%d", Bytes(int64(s.Rate)), s.TasksDone, s.TasksTotal)
	if s.TasksFailed > 0 {
		fmt.Fprintf(&b, " (%d failed)", s.TasksFailed)
	}
	fmt.Fprintf(&b, ", files %s, cells %s", Count(s.FilesLoaded), Count(s.Cells))
	if s.ETA > 0 {
		fmt.Fprintf(&b, ", ETA %s", s.ETA)
	}
	return b.String()
}

// Terminal redraws one status line with a bar, for an interactive terminal.
type Terminal struct {
	W     io.Writer
	Width int // of the bar; 0 means 30
}

// Update redraws the line.
func (t *Terminal) Update(s Sample) {
	fmt.Fprintf(t.W, "\r\x1b[K%s %3.0f%% %s", t.bar(s.Fraction()), 100*s.Fraction(), Line(s))
}

// Finish draws the line a last time and ends it.
func (t *Terminal) Finish(s Sample) {
	t.Update(s)
	fmt.Fprintln(t.W)
}

func (t *Terminal) bar(f float64) string {
	w := t.Width
	if w <= 0 {
		w = 30
	}
	full := int(f * float64(w))
	return "[" + strings.Repeat("=", full) + strings.Repeat(" ", w-full) + "]"
}

// Log writes a log line for each sample, for logs and pipes.
type Log struct {
	Logger *slog.Logger
	// What names the work in the messages ("<What> progress", "<What>
	// finished"); empty means "copy".
	What string
}

func (l *Log) what() string {
	if l.What == "" {
		return "copy"
	}
	return l.What
}

// Update logs the sample.
func (l *Log) Update(s Sample) { l.log(l.what()+" progress", s) }

// Finish logs the last sample.
func (l *Log) Finish(s Sample) { l.log(l.what()+" finished", s) }

func (l *Log) log(msg string, s Sample) {
	l.Logger.Info(msg, "read", Bytes(s.BytesRead), "total", Bytes(s.BytesTotal),
		"rate_per_s", Bytes(int64(s.Rate)), "tasks_done", s.TasksDone, "tasks_total", s.TasksTotal,
		"tasks_failed", s.TasksFailed, "files_loaded", s.FilesLoaded, "cells", s.Cells,
		"retries", s.Retries, "eta", s.ETA, "elapsed", s.Elapsed.Round(time.Second))
}

// WriteJSON writes a job's report record as indented JSON.
func WriteJSON(w io.Writer, r job.Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes a job's report for a person. A job that is not done
// (failed, interrupted, cancelled) shows its error first and then what it
// got done, with no rate: a rate over a run that stopped part way, or before
// it read anything, tells nothing.
func WriteText(w io.Writer, r job.Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "job %s: %s\n", r.Job, r.Status)
	if r.Error != "" {
		fmt.Fprintf(&b, "  error: %s\n", r.Error)
	}
	fmt.Fprintf(&b, "  %s -> %s, %s, %s\n", r.Table, r.TargetTable, r.Rows(), r.Times())
	switch {
	case r.Status == job.ReportDone:
		fmt.Fprintf(&b, "  %d/%d tasks done, %d failed\n", r.TasksDone, r.Tasks, r.TasksFailed)
		fmt.Fprintf(&b, "  read %s, loaded %s in %s files (%s cells), %d retries\n",
			Bytes(r.BytesRead), Bytes(r.BytesLoaded), Count(r.FilesLoaded), Count(r.Cells), r.LoadRetries)
		fmt.Fprintf(&b, "  %.1f s at %s/s, %d input files pruned unread\n", r.Seconds(), Bytes(int64(r.BytesPerSecond)), r.FilesPruned)
	case r.Tasks == 0 && r.BytesRead == 0 && r.FilesLoaded == 0:
		b.WriteString("  done before it stopped: nothing (no task was planned or run)\n")
	default:
		fmt.Fprintf(&b, "  done before it stopped: %d of %d tasks (%d failed); read %s, loaded %s in %s files (%s cells), %d retries",
			r.TasksDone, r.Tasks, r.TasksFailed, Bytes(r.BytesRead), Bytes(r.BytesLoaded), Count(r.FilesLoaded), Count(r.Cells), r.LoadRetries)
		if r.ElapsedMs > 0 {
			fmt.Fprintf(&b, ", in %s", r.Elapsed().Round(100*time.Millisecond))
		}
		b.WriteString("\n")
	}
	if r.CreatedNamespace != "" {
		fmt.Fprintf(&b, "  created the target namespace %s\n", r.CreatedNamespace)
	}
	if r.ProtectSource != "" {
		rate := "none"
		if r.ThrottleRate > 0 {
			rate = Bytes(int64(r.ThrottleRate)) + "/s"
		}
		fmt.Fprintf(&b, "  source protected at %s: probe p99 %.1f ms (idle %.1f ms, target %.1f ms) over %d probes (%d failed); throttle %s, cut %d times\n",
			r.ProtectSource, r.ProbeP99Ms, r.ProbeIdleP99Ms, r.ProbeTargetMs, r.Probes, r.ProbeErrors, rate, r.ThrottleDecreases)
	}
	if r.PinRetries > 0 {
		fmt.Fprintf(&b, "  source snapshot taken again %d times after a failed one\n", r.PinRetries)
	}
	switch {
	case r.Pinned.Live():
		fmt.Fprintf(&b, "  source pinned live: regions flushed and their store files read, no snapshot\n")
	case r.LiveFallback != "":
		fmt.Fprintf(&b, "  source pinned with a snapshot after all: %s\n", r.LiveFallback)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Fill copies a final sample into a report: its counts and the time run.
func Fill(r *job.Report, s Sample) {
	r.Tasks, r.TasksDone, r.TasksFailed = s.TasksTotal, s.TasksDone, s.TasksFailed
	r.InputBytes = s.BytesTotal
	r.BytesRead, r.BytesLoaded, r.FilesLoaded, r.Cells, r.LoadRetries = s.BytesRead, s.BytesLoaded, s.FilesLoaded, s.Cells, s.Retries
	r.SetElapsed(s.Elapsed)
}
