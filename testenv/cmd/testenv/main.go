// Command testenv starts, stops and describes rangecopy's test environment:
// two HBase mini clusters (source and target) run by the Java harness, each in
// a JVM of its own.
//
// Usage:
//
//	testenv up [-one-jvm]  build must be done (make testenv-build); start both JVMs and wait until ready
//	testenv down           stop the harness (SIGTERM, then SIGKILL after a grace period)
//	testenv status         print the clusters' addresses and each JVM's memory use
//
// -one-jvm runs both clusters in one JVM, the harness's first layout, kept
// for comparison. The state directory is $RANGECOPY_TESTENV or .testenv at
// the module root; RANGECOPY_TESTENV_HEAP sets each JVM's -Xmx.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"rangecopy/testenv"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "testenv: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, w io.Writer) error {
	oneJVM := false
	if len(args) == 2 && args[0] == "up" && args[1] == "-one-jvm" {
		oneJVM, args = true, args[:1]
	}
	if len(args) != 1 {
		return fmt.Errorf("usage: testenv up [-one-jvm] | down | status")
	}
	dir, err := testenv.DefaultDir()
	if err != nil {
		return err
	}
	root, err := testenv.ModuleRoot()
	if err != nil {
		return err
	}
	switch args[0] {
	case "up":
		t0 := time.Now()
		env, err := testenv.Start(ctx, testenv.StartOptions{
			Dir:        dir,
			HarnessDir: filepath.Join(root, "testenv"),
			OneJVM:     oneJVM,
			Heap:       os.Getenv("RANGECOPY_TESTENV_HEAP"),
			Logger:     slog.New(slog.NewTextHandler(os.Stderr, nil)),
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "test environment ready in %.1f s\n", time.Since(t0).Seconds())
		describe(w, env)
		return nil
	case "down":
		t0 := time.Now()
		if err := testenv.Stop(ctx, dir, 90*time.Second); err != nil {
			return err
		}
		fmt.Fprintf(w, "test environment stopped in %.1f s\n", time.Since(t0).Seconds())
		return nil
	case "status":
		env, err := testenv.Load(dir)
		if err != nil {
			return err
		}
		describe(w, env)
		return nil
	}
	return fmt.Errorf("unknown command %q; usage: testenv up [-one-jvm] | down | status", args[0])
}

func describe(w io.Writer, env *testenv.Env) {
	fmt.Fprintf(w, "state in %s\n", env.Dir)
	for _, c := range []*testenv.Cluster{env.Source, env.Target} {
		fmt.Fprintf(w, "%s: HBase %s, Hadoop %s, Java %s\n", c.Name, c.HBaseVersion, c.HadoopVersion, c.JavaVersion)
		fmt.Fprintf(w, "  harness JVM   pid %d (%s resident), control http://%s/op/..., log %s\n", c.PID, rss(c.PID), c.Control, c.Log)
		fmt.Fprintf(w, "  zookeeper     %s (znode parent %s)\n", c.ZKQuorum, c.ZNodeParent)
		fmt.Fprintf(w, "  namenode      %s (%s)\n", c.NameNode, c.FSDefaultFS)
		fmt.Fprintf(w, "  hbase.rootdir %s\n", c.HBaseRootDir)
		fmt.Fprintf(w, "  master        %s\n", c.Master)
		fmt.Fprintf(w, "  regionservers %s\n", strings.Join(c.RegionServers, " "))
		fmt.Fprintf(w, "  datanodes     %s\n", strings.Join(c.DataNodes, " "))
		fmt.Fprintf(w, "  config        %s\n", c.ConfDir)
	}
}

// rss reads the resident memory of a process from /proc.
func rss(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
