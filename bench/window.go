package bench

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"rangecopy/api"
)

// windowSchedule is how often the benchmark's relocation runs a catch-up window.
const windowSchedule = "*/15 * * * * *"

// serverWindow measures a relocation's catch-up windows on a warm server: it relocates the
// table to target (the full copy), times the first catch-up window (no new data), writes 1%
// new rows with timestamps of now through HBase, and times the next window, which copies
// them. The result's time is that window's run (its jobs' submission to their end, as the
// relocation records it); the note has the rest.
func (e *Env) serverWindow(ctx context.Context, t *Table, target string) (copied, error) {
	c := copied{filesTotal: t.Files, scope: all}
	dir, err := os.MkdirTemp("", "rangecopy-bench-window-")
	if err != nil {
		return c, fmt.Errorf("server data folder: %w", err)
	}
	defer os.RemoveAll(dir)
	p, err := e.startServer(ctx, dir, "/"+e.Prefix+"_window", e.Workers, ServerWindow.String())
	if err != nil {
		return c, err
	}
	stop := sync.OnceValue(p.stop)
	defer stop()
	if err := e.registerClusters(ctx, p); err != nil {
		return c, err
	}
	var rel api.RelocationOut
	create := api.RelocationCreate{Source: "source", Target: "target", Tables: []string{t.Table + "=" + target},
		Schedule: windowSchedule, Margin: "0s", MaxLag: "1h"}
	if err := p.call(ctx, http.MethodPost, "/relocations", create, &rel); err != nil {
		return c, fmt.Errorf("create the relocation: %w", err)
	}
	defer func() {
		_ = p.call(context.WithoutCancel(ctx), http.MethodPost, "/relocations/"+rel.ID+"/cancel", nil, nil)
	}()
	// waitWindow waits for a window of that kind, started after since, to end.
	waitWindow := func(kind string, since time.Time, timeout time.Duration) (api.WindowOut, error) {
		deadline := time.Now().Add(timeout)
		for {
			if err := p.call(ctx, http.MethodGet, "/relocations/"+rel.ID, nil, &rel); err != nil {
				return api.WindowOut{}, err
			}
			if rel.Phase == "failed" || rel.Phase == "cancelled" {
				return api.WindowOut{}, fmt.Errorf("relocation %s %s: %s", rel.ID, rel.Phase, rel.Why)
			}
			for _, w := range rel.Windows {
				if string(w.Kind) == kind && len(w.JobIDs) > 0 && w.FinishedAt != nil && !w.StartedAt.Before(since) {
					return w, nil
				}
			}
			if time.Now().After(deadline) {
				return api.WindowOut{}, fmt.Errorf("relocation %s: no %s window ended within %s (phase %s)", rel.ID, kind, timeout, rel.Phase)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	full, err := waitWindow("full", time.Time{}, 30*time.Minute)
	if err != nil {
		return c, err
	}
	empty, err := waitWindow("catch-up", *full.FinishedAt, 5*time.Minute)
	if err != nil {
		return c, err
	}
	// 1% new rows, after the table's last, with timestamps of now, left in the memstores as an
	// application's latest writes are: the window's pin flushes them.
	n := max(t.Rows/100, 1)
	d := t.Dataset
	d.StartMs, d.SpanMs = time.Now().UnixMilli()-1000, 1000
	written := time.Now()
	if err := e.write(ctx, d, t.Rows, t.Rows+n, false); err != nil {
		return c, fmt.Errorf("write the new rows: %w", err)
	}
	wrote := time.Since(written)
	after := time.Now()
	win, err := waitWindow("catch-up", after, 5*time.Minute)
	if err != nil {
		return c, err
	}
	x := stop()
	c.wall = float64(win.DurationMs) / 1000
	c.bytes, c.filesPruned = win.Bytes, int(win.FilesPruned)
	c.peakRSS, c.cpuSeconds = x.PeakRSS, x.CPUSeconds
	c.note = fmt.Sprintf("rangecopy server --workers %d, relocation schedule %q, margin 0; full copy window %.1f s; "+
		"catch-up with no new data %.2f s (%d files pruned of the pinned ones, %d loaded); %s new rows written through HBase (left in the memstores) in %.1f s, "+
		"then a catch-up of %.2f s copied %d bytes (%d files loaded, %d pruned); time is the window's run as the relocation records it",
		e.Workers, windowSchedule, float64(full.DurationMs)/1000, float64(empty.DurationMs)/1000, empty.FilesPruned, empty.FilesLoaded,
		strconv.FormatInt(n, 10), wrote.Seconds(), float64(win.DurationMs)/1000, win.Bytes, win.FilesLoaded, win.FilesPruned)
	return c, nil
}
