package main

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"rangecopy/metrics"
)

// TestServeMetrics: a worker's or master's /metrics holds what every process exports
// (rangecopy_build_info of this binary's version, the ZooKeeper session) beside its own.
func TestServeMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	if _, err := metrics.NewWorker(reg); err != nil {
		t.Fatal(err)
	}
	addr, stop, err := serveMetrics(t.Context(), "127.0.0.1:0", reg, func() bool { return true }, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s, %v", resp.Status, err)
	}
	text := string(b)
	for _, want := range []string{`rangecopy_build_info{goversion="go`, `version="` + version + `"} 1`,
		"\nrangecopy_zookeeper_session_up 1\n", "\nrangecopy_worker_task_duration_seconds_count{outcome=\"done\"} 0\n",
		"\ngo_goroutines ", "\nprocess_start_time_seconds "} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}
