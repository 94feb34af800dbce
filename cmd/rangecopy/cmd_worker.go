package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"rangecopy/registry"
	"rangecopy/worker"
)

const workerUsage = `Usage: rangecopy worker --zk <host:port,...> [flags]

Runs a worker: it registers in the registry and runs tasks of every running
detached job, up to --capacity at once, reading the source's HFiles from its
HDFS and bulk loading into the target (both named by each job). Its share of
a job's --bandwidth is its capacity over that of all live workers. When its
ZooKeeper session expires it stops its tasks at once and registers anew; a
task it stops is taken over by another worker from its checkpoint. Stops on
SIGINT or SIGTERM, releasing its tasks.

Flags:
`

func runWorker(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var rf registryFlags
	var id string
	var capacity int
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, workerUsage); fs.PrintDefaults() }
	rf.add(fs, true)
	fs.StringVar(&id, "id", "", "this worker's id, unique among live workers (default worker-<host>-<pid>)")
	fs.IntVar(&capacity, "capacity", 4, "tasks run at once")
	if help, err := parseCommand(fs, args); help || err != nil {
		if help {
			return nil
		}
		return err
	}
	if capacity < 1 || capacity > 256 {
		return fmt.Errorf("%w: --capacity %d: want 1 to 256", errUsage, capacity)
	}
	if id == "" {
		id = registry.ProcessID("worker")
	}
	log, reg, err := rf.start(ctx, stderr)
	if err != nil {
		return err
	}
	defer reg.Close()
	host, _ := os.Hostname()
	return worker.RunAgent(ctx, worker.AgentConfig{Registry: reg, ID: id, Capacity: capacity,
		Info: fmt.Sprintf("rangecopy %s, host %s, pid %d", version, host, os.Getpid()), Logger: log})
}
