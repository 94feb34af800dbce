package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"rangecopy/api"
	"rangecopy/apiclient"
	"rangecopy/progress"
	"rangecopy/render"
	"rangecopy/testenv"
)

// relocateBound bounds the whole relocation part of the demo.
const relocateBound = 6 * time.Minute

// relocate shows a relocation through rangecopy server: it starts the server (embedded
// SQLite catalog and workers), registers both clusters, relocates the sample table to a
// renamed target while a writer keeps writing to the source, waits for catch-up windows and a
// verification, stops the writer, cuts over and prints the report; then it compares the two
// tables cell for cell.
func relocate(ctx context.Context, env *testenv.Env, bin, table string, stdout, stderr io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, relocateBound)
	defer cancel()
	dataDir, err := os.MkdirTemp("", "rangecopy-demo-server-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dataDir)
	root := fmt.Sprintf("/rangecopy-demo-%d", time.Now().UnixNano())
	args := []string{"server", "--zk", env.Target.ZKQuorum, "--zk-root", root, "--data-dir", dataDir,
		"--listen", "127.0.0.1:0", "--workers", "2", "--log-format", "json"}
	fmt.Fprintf(stdout, "\ndemo: bin/rangecopy %s\n", quote(args))
	srv := exec.CommandContext(ctx, bin, args...)
	srv.Cancel = func() error { return srv.Process.Signal(os.Interrupt) }
	srv.WaitDelay = 15 * time.Second
	logFile, err := os.Create(filepath.Join(dataDir, "server.log"))
	if err != nil {
		return err
	}
	defer logFile.Close()
	errPipe, err := srv.StderrPipe()
	if err != nil {
		return err
	}
	if err := srv.Start(); err != nil {
		return fmt.Errorf("start rangecopy server: %w", err)
	}
	defer func() {
		_ = srv.Process.Signal(os.Interrupt)
		_ = srv.Wait()
	}()
	urlc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(logFile, line)
			if u, ok := strings.CutPrefix(line, "rangecopy server: serving "); ok {
				urlc <- strings.TrimSuffix(u, api.APIPrefix)
			}
		}
	}()
	var base string
	select {
	case base = <-urlc:
	case <-time.After(time.Minute):
		return errors.New("rangecopy server did not start within a minute")
	}
	token, err := os.ReadFile(filepath.Join(dataDir, "admin-token"))
	if err != nil {
		return fmt.Errorf("the bootstrap token: %w", err)
	}
	client, err := apiclient.New(base, apiclient.Options{Token: strings.TrimSpace(string(token))})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "demo: the server is up: dashboard %s/ (sign in with the token in %s/admin-token)\n", base, dataDir)
	for name, c := range map[string]*testenv.Cluster{"dc1": env.Source, "dc2": env.Target} {
		files := map[string]string{}
		for _, n := range []string{"hbase-site.xml", "core-site.xml"} {
			b, err := os.ReadFile(filepath.Join(c.ConfDir, n))
			if err != nil {
				return err
			}
			files[n] = string(b)
		}
		if _, err := client.CreateCluster(ctx, name, api.ClusterInput{SiteFiles: files, User: c.User}); err != nil {
			return fmt.Errorf("register %s: %w", name, err)
		}
	}
	fmt.Fprintln(stdout, "demo: registered dc1 (the source) and dc2 (the target)")

	target := table + "_moved"
	_ = env.Target.DeleteTable(ctx, target)
	// A writer writes new rows, and overwrites old ones, with the time of now, until the
	// cut-over.
	wctx, stopWriter := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var written int
	var werr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; wctx.Err() == nil; i++ {
			now := time.Now().UnixMilli()
			cells := []testenv.Cell{
				{Row: []byte(fmt.Sprintf("live-%06d", i)), Family: []byte("cf1"), Qualifier: []byte("q1"), Timestamp: now, Type: "Put", Value: []byte(fmt.Sprintf("written %d", i))},
				{Row: []byte(rowKey(i % 100)), Family: []byte("cf2"), Qualifier: []byte("q1"), Timestamp: now, Type: "Put", Value: []byte(fmt.Sprintf("overwritten %d", i))},
			}
			if err := env.Source.Mutate(wctx, table, cells); err != nil {
				if wctx.Err() == nil {
					werr = err
				}
				return
			}
			written += len(cells)
			select {
			case <-wctx.Done():
			case <-time.After(250 * time.Millisecond):
			}
		}
	}()
	defer func() { stopWriter(); wg.Wait() }()

	var rel api.RelocationOut
	create := api.RelocationCreate{Source: "dc1", Target: "dc2", Tables: []string{table + "=" + target},
		Schedule: "*/5 * * * * *", Margin: "10s", MaxLag: "1m"}
	if err := client.Call(ctx, http.MethodPost, "/relocations", create, &rel); err != nil {
		return fmt.Errorf("create the relocation: %w", err)
	}
	fmt.Fprintf(stdout, "demo: relocation %s of %s to %s, a catch-up window every 5 s, while a writer writes\n", rel.ID, table, target)
	var phase api.RelocationPhase
	seen := 0
	// look reads the relocation once and says what changed: first the windows that ended
	// (they belong to the phase they ran in), then a new phase.
	look := func() error {
		if err := client.Call(ctx, http.MethodGet, "/relocations/"+rel.ID, nil, &rel); err != nil {
			return err
		}
		for ; seen < len(rel.Windows); seen++ {
			w := rel.Windows[seen]
			if w.FinishedAt == nil && w.Kind != "" && w.JobIDs != nil {
				break // report it once it ended
			}
			fmt.Fprintf(stdout, "demo:   window %d (%s): %s, %s, %d files loaded, %d pruned, lag %s\n",
				w.Seq, w.Kind, windowTimes(w), outcomeOf(w), w.FilesLoaded, w.FilesPruned, time.Duration(w.LagMs)*time.Millisecond)
		}
		if rel.Phase != phase {
			line := "demo: phase " + string(rel.Phase)
			if rel.Why != "" {
				line += " (" + rel.Why + ")"
			}
			fmt.Fprintln(stdout, line)
			phase = rel.Phase
		}
		if rel.Phase == "failed" || rel.Phase == "cancelled" {
			return fmt.Errorf("relocation %s %s: %s", rel.ID, rel.Phase, rel.Why)
		}
		return nil
	}
	wait := func(until func(api.RelocationOut) bool) error {
		for {
			if err := look(); err != nil {
				return err
			}
			if until(rel) {
				return nil
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("relocation %s: still %s: %w", rel.ID, rel.Phase, ctx.Err())
			case <-time.After(time.Second):
			}
		}
	}
	catchUps := func(r api.RelocationOut) int {
		n := 0
		for _, w := range r.Windows {
			if w.Kind == "catch-up" && w.FinishedAt != nil && w.LagMs > 0 {
				n++
			}
		}
		return n
	}
	if err := wait(func(r api.RelocationOut) bool { return r.Phase == "ready" && catchUps(r) >= 2 }); err != nil {
		return err
	}
	stopWriter()
	wg.Wait()
	if werr != nil {
		return fmt.Errorf("the writer: %w", werr)
	}
	fmt.Fprintf(stdout, "demo: the writer stopped after %d cells; cutting over\n", written)
	var cut api.CutoverOut
	if err := client.Call(ctx, http.MethodPost, "/relocations/"+rel.ID+"/cutover", map[string]any{}, &cut); err != nil {
		return fmt.Errorf("cut over: %w", err)
	}
	// The phase it is in now, then what it does in it.
	if err := look(); err != nil {
		return err
	}
	for i, s := range cut.Steps {
		fmt.Fprintf(stdout, "demo:   step %d: %s\n", i+1, s)
	}
	if err := wait(func(r api.RelocationOut) bool { return r.Phase == "done" }); err != nil {
		return err
	}
	if r := rel.Report; r != nil {
		fmt.Fprintf(stdout, "demo: report: %d cells compared, the cells %s (and %d batches matched by file checksums), %d differences (%d left, %d ranges re-copied), %s copied in windows (%s), %.1f s\n",
			r.CellsCompared, render.Times(0, r.Until), r.BatchesProven, r.Differences, r.Remaining, r.RangesRecopied,
			progress.Bytes(r.BytesCopied), render.Outcomes(r.Windows), float64(r.DurationMs)/1000)
	}
	src, err := env.Source.Scan(ctx, table, testenv.ScanSpec{Raw: true})
	if err != nil {
		return fmt.Errorf("scan source: %w", err)
	}
	dst, err := env.Target.Scan(ctx, target, testenv.ScanSpec{Raw: true})
	if err != nil {
		return fmt.Errorf("scan target: %w", err)
	}
	if err := compare(src, dst); err != nil {
		return fmt.Errorf("after the cut-over: %w", err)
	}
	fmt.Fprintf(stdout, "demo: %d cells of %s and %s compared (raw scans), all equal; the server stops now\n", len(src), table, target)
	return nil
}

// outcomeOf says how a window ended.
func outcomeOf(w api.WindowOut) string {
	switch {
	case w.FinishedAt == nil:
		return "running"
	case len(w.JobIDs) == 0:
		return "skipped (a window was running)"
	}
	return fmt.Sprintf("ran in %s", time.Duration(w.DurationMs)*time.Millisecond)
}

// windowTimes says which cells a window copied: all of them for the full copy (whose range
// the API gives as 0, 0), from its snapshot; its time range for the others.
func windowTimes(w api.WindowOut) string {
	if w.Kind == "full" {
		if w.SnapshotTime > 0 {
			return "all time, from its snapshot of " + render.Millis(w.SnapshotTime)
		}
		return "all time"
	}
	return "the cells " + render.Times(w.StartTime, w.EndTime)
}
