package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"rangecopy/metrics"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/pflag"
)

// metricsFlags is --metrics-addr.
type metricsFlags struct {
	addr string
}

func (m *metricsFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&m.addr, "metrics-addr", "", "serve Prometheus metrics on http://<host:port>/metrics (default none)")
}

// serveMetrics listens on addr and serves reg's metrics (with what every
// process exports: metrics.NewProcess, connected saying whether the process
// holds a ZooKeeper session) on /metrics until ctx ends. It returns the
// address listened on, and a function that stops the server. extra are more
// handlers (a worker's /healthz).
func serveMetrics(ctx context.Context, addr string, reg *prometheus.Registry, connected func() bool, log *slog.Logger, extra ...route) (string, func(), error) {
	if err := metrics.NewProcess(reg, metrics.BuildOf(version), connected); err != nil {
		return "", nil, err
	}
	l, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return "", nil, usageErrorf("--metrics-addr %s: %v", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	for _, r := range extra {
		mux.Handle(r.pattern, r.handler)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics server stopped", "err", err)
		}
	}()
	log.Info("serving metrics", "addr", l.Addr().String())
	return l.Addr().String(), func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		<-done
	}, nil
}
