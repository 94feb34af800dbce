package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"

	"rangecopy/job"
	"rangecopy/jobkind"
	"rangecopy/metrics"
	"rangecopy/registry"
	"rangecopy/verify"
	"rangecopy/worker"
)

// workerFlags are the command line of rangecopy worker.
type workerFlags struct {
	registry registryFlags
	log      logFlags
	id       string
	capacity int
	metrics  metricsFlags
	memory   string
}

func newWorkerCommand() *cobra.Command {
	var f workerFlags
	c := &cobra.Command{
		Use:   "worker --zk <host:port,...>",
		Short: "run a worker: run tasks of detached jobs through ZooKeeper",
		Long: `Runs a worker: it registers in the registry and runs tasks of every running
detached job, up to --capacity at once, reading the source's HFiles from its
HDFS and bulk loading into the target (both named by each job). Its share of
a job's --bandwidth is its capacity over that of all live workers. When its
ZooKeeper session expires it stops its tasks at once and registers anew; a
task it stops is taken over by another worker from its checkpoint. It also
hashes the units of running verifications (rangecopy verify), whichever
process started them, with its share of their --bandwidth. Stops on
SIGINT or SIGTERM, releasing its tasks. With --metrics-addr it serves
Prometheus metrics (bytes read, written and loaded, tasks, retries,
bandwidth, the ZooKeeper session) on /metrics, and on /healthz its ZooKeeper
session (200 while it has one, 503 while not) for a liveness probe.`,
		Example: "  rangecopy worker --zk zk1,zk2,zk3:2181 --capacity 8 --metrics-addr :9464",
		Args:    noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runWorker(c.Context(), f, c.ErrOrStderr())
		},
	}
	fs := c.Flags()
	fs.SortFlags = false
	f.registry.add(fs, "")
	f.registry.addSessionTimeout(fs)
	fs.StringVar(&f.id, "id", "", "this worker's id, unique among live workers (default worker-<host>-<pid>)")
	fs.IntVar(&f.capacity, "capacity", 4, "tasks run at once")
	f.metrics.add(fs)
	fs.StringVar(&f.memory, "memory", "512MiB", "memory budget of the worker's buffers, shared by its tasks (read-ahead shrinks as input files multiply); the Go heap's soft limit is this plus 64MiB unless GOMEMLIMIT is set")
	f.log.add(fs)
	f.log.complete(c)
	return c
}

// runWorker runs tasks until ctx ends, logging on stderr.
func runWorker(ctx context.Context, f workerFlags, stderr io.Writer) error {
	if f.capacity < 1 || f.capacity > 256 {
		return usageErrorf("--capacity %d: want 1 to 256", f.capacity)
	}
	mem, err := parseMemory(f.memory)
	if err != nil {
		return usageErrorf("%v", err)
	}
	setHeapLimit(mem, os.Getenv("GOMEMLIMIT"))
	log, err := f.log.logger(stderr, slog.LevelInfo)
	if err != nil {
		return err
	}
	if f.id == "" {
		f.id = registry.ProcessID("worker")
	}
	reg, err := f.registry.open(ctx, log)
	if err != nil {
		return err
	}
	defer reg.Close()
	host, _ := os.Hostname()
	cfg := worker.AgentConfig{Registry: reg, ID: f.id, Capacity: f.capacity, Memory: mem,
		Info: fmt.Sprintf("rangecopy %s, host %s, pid %d", version, host, os.Getpid()), Logger: log,
		Kinds: map[string]jobkind.Server{job.KindVerify: verify.UnitServer{}}}
	if f.metrics.addr != "" {
		preg := prometheus.NewRegistry()
		if cfg.Metrics, err = metrics.NewWorker(preg); err != nil {
			return err
		}
		_, stop, err := serveMetrics(ctx, f.metrics.addr, preg, reg.Connected, log, sessionHealth(reg.Connected, reg.SessionID))
		if err != nil {
			return err
		}
		defer stop()
	}
	return worker.RunAgent(ctx, cfg)
}
