package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
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

// serveMetrics listens on addr and serves reg's metrics (with the Go
// runtime's and the process's) on /metrics until ctx ends. It returns the
// address listened on, and a function that stops the server. extra are more handlers
// (a worker's /healthz).
func serveMetrics(ctx context.Context, addr string, reg *prometheus.Registry, log *slog.Logger, extra ...route) (string, func(), error) {
	if err := reg.Register(collectors.NewGoCollector()); err != nil {
		return "", nil, fmt.Errorf("metrics: %w", err)
	}
	if err := reg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})); err != nil {
		return "", nil, fmt.Errorf("metrics: %w", err)
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
