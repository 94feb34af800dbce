package inproc

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"rangecopy/cluster"
	"rangecopy/job"
	"rangecopy/master"
	"rangecopy/testenv"
)

// taskTimes is a slog.Handler that keeps the durations of the "task done"
// lines.
type taskTimes struct {
	mu      sync.Mutex
	seconds []float64
	lines   []string
}

func (h *taskTimes) Enabled(context.Context, slog.Level) bool { return true }
func (h *taskTimes) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *taskTimes) WithGroup(string) slog.Handler            { return h }
func (h *taskTimes) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "task done" {
		return nil
	}
	line := ""
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "seconds" {
			h.mu.Lock()
			h.seconds = append(h.seconds, a.Value.Float64())
			h.mu.Unlock()
		}
		line += " " + a.String()
		return true
	})
	h.mu.Lock()
	h.lines = append(h.lines, r.Time.Format("15:04:05.000")+line)
	h.mu.Unlock()
	return nil
}

// BenchmarkIntegrationSkewedBalance copies a table whose first region holds
// ten times the rows of each of the six others (split at the hex digits a..f
// of LoadTable's keys) with four workers and the default task sizing, and
// reports how long the copy took against the ideal: the sum of the tasks'
// times over four. Size with RANGECOPY_BALANCE_MB (default 1600).
func BenchmarkIntegrationSkewedBalance(b *testing.B) {
	env := testenv.Get(b)
	var err error
	mb := 1600
	if s := os.Getenv("RANGECOPY_BALANCE_MB"); s != "" {
		if mb, err = strconv.Atoi(s); err != nil {
			b.Fatalf("RANGECOPY_BALANCE_MB=%q: %v", s, err)
		}
	}
	ctx := context.Background()
	// RANGECOPY_BALANCE_TABLE names a table written by an earlier run
	// (kept with RANGECOPY_BALANCE_KEEP=1), to measure again without
	// writing it again.
	table := os.Getenv("RANGECOPY_BALANCE_TABLE")
	if table == "" {
		table = fmt.Sprintf("balance_%d", time.Now().UnixNano())
		var splits [][]byte
		for c := 'a'; c <= 'f'; c++ {
			splits = append(splits, []byte{byte(c)})
		}
		if err := env.Source.CreateTable(ctx, table, []testenv.Family{{Name: "f"}}, splits); err != nil {
			b.Fatal(err)
		}
		if os.Getenv("RANGECOPY_BALANCE_KEEP") == "" {
			defer env.Source.DeleteTable(context.Background(), table)
		}
		rows := mb << 20 / 1000
		res, err := env.Source.RunTool(ctx, "rangecopy.testenv.LoadTable", []string{table, "f", strconv.Itoa(rows), "984"}, nil)
		if err != nil || res.ExitCode != 0 {
			b.Fatalf("LoadTable: %v, %+v", err, res)
		}
		fmt.Fprintf(os.Stderr, "source table %s: %s\n", table, res.Output[strings.LastIndex(res.Output, "RESULT"):])
	}
	for i := 0; i < b.N; i++ {
		src, err := cluster.Load("source", env.Source.ConfDir)
		if err != nil {
			b.Fatal(err)
		}
		tgt, err := cluster.Load("target", env.Target.ConfDir)
		if err != nil {
			b.Fatal(err)
		}
		target := fmt.Sprintf("%s_t%d", table, i)
		times := &taskTimes{}
		u := fmt.Sprintf("balance-%d", time.Now().UnixNano())
		o := Options{Options: master.Options{Source: src, Target: tgt, Spec: job.Spec{Table: table, TargetTable: target}, Workers: 4, RunOptions: job.RunOptions{Settings: job.Settings{CreateTable: true}, WorkRoot: "/tmp/rangecopy-bench/" + u, User: env.Target.User}, ZKRoot: "/rangecopy-bench/" + u, Logger: slog.New(times)}}
		rep, err := Copy(ctx, o)
		env.Target.DeleteTable(context.Background(), target)
		if err != nil {
			b.Fatalf("copy: %v", err)
		}
		var sum, longest float64
		for _, s := range times.seconds {
			sum += s
			longest = max(longest, s)
		}
		ideal := sum / 4
		ratio := rep.Seconds() / ideal
		b.ReportMetric(ratio, "x-ideal")
		b.ReportMetric(float64(rep.Tasks), "tasks")
		b.ReportMetric(float64(rep.BytesRead)/rep.Seconds()/(1<<20), "MiB/s")
		for _, l := range times.lines {
			fmt.Fprintf(os.Stderr, "task done:%s\n", l)
		}
		fmt.Fprintf(os.Stderr, "%d tasks (%d MiB read) in %.1f s; sum of task times %.1f s, longest %.1f s; ideal %.1f s; ratio %.3f\n",
			rep.Tasks, rep.BytesRead>>20, rep.Seconds(), sum, longest, ideal, ratio)
	}
}
