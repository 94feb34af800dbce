package main

import (
	"context"
	"io"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"

	"rangecopy/master"
	"rangecopy/metrics"
	"rangecopy/registry"
)

// masterFlags are the command line of rangecopy master.
type masterFlags struct {
	registry registryFlags
	log      logFlags
	id       string
	metrics  metricsFlags
}

func newMasterCommand() *cobra.Command {
	var f masterFlags
	c := &cobra.Command{
		Use:   "master --zk <host:port,...>",
		Short: "run a master: lead detached jobs through ZooKeeper (several may run)",
		Long: `Runs a master: it joins the election in the registry and, while it leads,
serves every job submitted with "rangecopy copy --detach": pins and plans it
into tasks, retries failed tasks with a backoff (then pauses the job for an
operator), stores progress, and finishes or cancels it. Run two or three: one
leads, the others take over within a session timeout of its death. Stops on
SIGINT or SIGTERM. With --metrics-addr it serves Prometheus metrics (whether
it leads, the tasks of each job by status, the ZooKeeper session) on
/metrics.`,
		Example: "  rangecopy master --zk zk1,zk2,zk3:2181",
		Args:    noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runMaster(c.Context(), f, c.ErrOrStderr())
		},
	}
	fs := c.Flags()
	fs.SortFlags = false
	f.registry.add(fs, "")
	f.registry.addSessionTimeout(fs)
	fs.StringVar(&f.id, "id", "", "this master's name in the election (default master-<host>-<pid>)")
	f.metrics.add(fs)
	f.log.add(fs)
	f.log.complete(c)
	return c
}

// runMaster leads jobs until ctx ends, logging on stderr.
func runMaster(ctx context.Context, f masterFlags, stderr io.Writer) error {
	log, err := f.log.logger(stderr, slog.LevelInfo)
	if err != nil {
		return err
	}
	if f.id == "" {
		f.id = registry.ProcessID("master")
	}
	reg, err := f.registry.open(ctx, log)
	if err != nil {
		return err
	}
	defer reg.Close()
	cfg := master.LeadConfig{Registry: reg, ID: f.id, Logger: log}
	if f.metrics.addr != "" {
		preg := prometheus.NewRegistry()
		if cfg.Metrics, err = metrics.NewMaster(preg); err != nil {
			return err
		}
		_, stop, err := serveMetrics(ctx, f.metrics.addr, preg, reg.Connected, log)
		if err != nil {
			return err
		}
		defer stop()
	}
	return master.Lead(ctx, cfg)
}
