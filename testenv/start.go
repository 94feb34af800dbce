package testenv

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"rangecopy/retry"
)

// jvmFlags open the JDK internals that HBase 2.6 and Hadoop 3.3 reach into on
// JDK 17 (the flags of HBase's bin/hbase for JDK 11+, plus the JDK 17 extra).
func jvmFlags() []string {
	return []string{
		"-XX:+IgnoreUnrecognizedVMOptions",
		"-Djava.net.preferIPv4Stack=true",
		"-Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true",
		"--add-modules", "jdk.unsupported",
		"--add-opens", "java.base/java.io=ALL-UNNAMED",
		"--add-opens", "java.base/java.nio=ALL-UNNAMED",
		"--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
		"--add-opens", "java.base/java.lang=ALL-UNNAMED",
		"--add-opens", "java.base/jdk.internal.ref=ALL-UNNAMED",
		"--add-opens", "java.base/java.lang.reflect=ALL-UNNAMED",
		"--add-opens", "java.base/java.util=ALL-UNNAMED",
		"--add-opens", "java.base/java.util.concurrent=ALL-UNNAMED",
		"--add-opens", "java.base/jdk.internal.util.random=ALL-UNNAMED",
		"--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
		"--add-exports", "java.security.jgss/sun.security.krb5=ALL-UNNAMED",
		"--add-exports", "java.base/sun.net.dns=ALL-UNNAMED",
		"--add-exports", "java.base/sun.net.util=ALL-UNNAMED",
	}
}

// StartOptions say where and how to start the harness.
type StartOptions struct {
	// Dir is the state directory (see DefaultDir).
	Dir string
	// HarnessDir is the testenv folder holding the Maven build
	// (target/classes and target/classpath.txt).
	HarnessDir string
	// Heap is the JVM's -Xmx; empty means 6g.
	Heap string
	// Timeout bounds the wait for both clusters; zero means 10 minutes.
	Timeout time.Duration
	// Logger receives progress; nil discards it.
	Logger *slog.Logger
}

// Start launches the harness in the background, detached from the caller (it
// outlives it; stop it with Stop), and waits until both clusters are ready.
// An environment already running in opts.Dir is returned as it is.
func Start(ctx context.Context, opts StartOptions) (*Env, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if e, err := Load(opts.Dir); err == nil {
		log.Info("test environment already running", "dir", opts.Dir, "pid", e.PID)
		return e, nil
	}
	cpFile := filepath.Join(opts.HarnessDir, "target", "classpath.txt")
	cp, err := os.ReadFile(cpFile)
	if err != nil {
		return nil, fmt.Errorf("start test environment: %w (build the harness first: make testenv-build)", err)
	}
	java, err := exec.LookPath("java")
	if err != nil {
		return nil, fmt.Errorf("start test environment: %w (install JDK 17)", err)
	}
	// A stale state directory (a harness killed without cleanup) is cleared.
	if err := os.RemoveAll(opts.Dir); err != nil {
		return nil, fmt.Errorf("start test environment: clear %s: %w", opts.Dir, err)
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("start test environment: %w", err)
	}
	heap := opts.Heap
	if heap == "" {
		heap = "6g"
	}
	logPath := filepath.Join(opts.Dir, "harness.log")
	args := jvmFlags()
	args = append(args,
		"-Xmx"+heap,
		"-Drangecopy.testenv.log="+logPath,
		"-Dhbase.testing.preserve.testdir=false",
		"-cp", filepath.Join(opts.HarnessDir, "target", "classes")+string(os.PathListSeparator)+strings.TrimSpace(string(cp)),
		"rangecopy.testenv.Harness", "--dir", opts.Dir)
	out, err := os.OpenFile(filepath.Join(opts.Dir, "harness.out"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("start test environment: %w", err)
	}
	defer out.Close()
	cmd := exec.Command(java, args...)
	cmd.Dir = opts.Dir
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start test environment: %w", err)
	}
	pid := cmd.Process.Pid
	if err := os.WriteFile(filepath.Join(opts.Dir, "harness.pid"), []byte(strconv.Itoa(pid)+"\n"), 0o644); err != nil {
		return nil, fmt.Errorf("start test environment: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	log.Info("harness started", "pid", pid, "dir", opts.Dir)

	timeout := opts.Timeout
	if timeout == 0 {
		timeout = 10 * time.Minute
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-exited:
			return nil, fmt.Errorf("start test environment: harness exited before it was ready (%v); see %s and %s",
				err, out.Name(), logPath)
		case <-deadline.C:
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			return nil, fmt.Errorf("start test environment: not ready after %s; killed it; see %s", timeout, logPath)
		case <-ctx.Done():
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			return nil, fmt.Errorf("start test environment: %w", ctx.Err())
		case <-tick.C:
			e, err := Load(opts.Dir)
			if err != nil {
				continue
			}
			log.Info("test environment ready", "took", time.Since(t0).Round(100*time.Millisecond),
				"hbase", e.HBaseVersion, "hadoop", e.HadoopVersion)
			return e, nil
		}
	}
}

// Stop shuts down the harness whose state is in dir: SIGTERM (the harness
// stops both clusters cleanly), then SIGKILL of its process group if it has
// not exited within grace. A directory with nothing running is not an error.
func Stop(ctx context.Context, dir string, grace time.Duration) error {
	b, err := os.ReadFile(filepath.Join(dir, "harness.pid"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("stop test environment: %w", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 1 {
		return fmt.Errorf("stop test environment: bad pid file %s: %q", filepath.Join(dir, "harness.pid"), b)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		if errors.Is(err, syscall.ESRCH) {
			return os.Remove(filepath.Join(dir, "harness.pid"))
		}
		return fmt.Errorf("stop test environment: signal %d: %w", pid, err)
	}
	deadline := time.Now().Add(grace)
	for alive(pid) && time.Now().Before(deadline) {
		if retry.Sleep(ctx, 200*time.Millisecond) != nil {
			break
		}
	}
	if alive(pid) {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		_ = syscall.Kill(pid, syscall.SIGKILL)
		for i := 0; i < 50 && alive(pid); i++ {
			time.Sleep(100 * time.Millisecond)
		}
		if alive(pid) {
			return fmt.Errorf("stop test environment: harness %d still alive after SIGKILL", pid)
		}
	}
	_ = os.Remove(filepath.Join(dir, "clusters.json"))
	return os.Remove(filepath.Join(dir, "harness.pid"))
}

// alive reports whether a process exists and is not a zombie.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}
