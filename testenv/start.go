package testenv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
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
	// Specs are the clusters to start; nil means DefaultSpecs.
	Specs []ClusterSpec
	// OneJVM runs every cluster in one JVM (the harness's first layout,
	// kept for comparison): the specs must then agree on classpath, Java
	// home and heap.
	OneJVM bool
	// Heap is each JVM's -Xmx unless its spec says; empty means 3g a
	// cluster (6g for two in one JVM).
	Heap string
	// Timeout bounds the wait for the clusters; zero means 10 minutes.
	Timeout time.Duration
	// Logger receives progress; nil discards it.
	Logger *slog.Logger
}

// running is a harness JVM started by Start.
type running struct {
	jvm
	cmd    *exec.Cmd
	exited chan error
}

// Start launches the harness in the background, one JVM per cluster spec
// (all at once), detached from the caller (they outlive it; stop them with
// Stop), waits until every JVM has written its ready file, writes
// clusters.json atomically, and has each JVM watch the others, so that one
// that dies takes the rest down. If a JVM dies or the wait ends first, the
// others are killed and the error names the cluster and ends with its log.
// An environment already running in opts.Dir is returned as it is.
func Start(ctx context.Context, opts StartOptions) (*Env, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if e, err := Load(opts.Dir); err == nil {
		log.Info("test environment already running", "dir", opts.Dir, "pids", e.PIDs())
		return e, nil
	}
	specs := opts.Specs
	if specs == nil {
		specs = DefaultSpecs()
	}
	if err := checkSpecs(specs, opts.OneJVM); err != nil {
		return nil, fmt.Errorf("start test environment: %w", err)
	}
	jvms := jvmGroups(specs, opts.OneJVM)
	cmds := make([]*exec.Cmd, len(jvms))
	for i, j := range jvms {
		c, err := j.command(opts)
		if err != nil {
			return nil, fmt.Errorf("start test environment: cluster %s: %w", j.name, err)
		}
		cmds[i] = c
	}
	// What a harness left running in the directory (one JVM of two, say)
	// is stopped before its state is cleared.
	if err := Stop(ctx, opts.Dir, 30*time.Second); err != nil {
		return nil, fmt.Errorf("start test environment: stop what is left in %s: %w", opts.Dir, err)
	}
	if err := os.RemoveAll(opts.Dir); err != nil {
		return nil, fmt.Errorf("start test environment: clear %s: %w", opts.Dir, err)
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("start test environment: %w", err)
	}
	for _, s := range specs {
		b, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			return nil, fmt.Errorf("start test environment: cluster %s: %w", s.Name, err)
		}
		if err := os.WriteFile(specPath(opts.Dir, s.Name), b, 0o644); err != nil {
			return nil, fmt.Errorf("start test environment: %w", err)
		}
	}
	t0 := time.Now()
	var started []*running
	killAll := func() {
		for _, r := range started {
			_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
		}
		for _, r := range started {
			<-r.exited
			_ = os.Remove(r.pidPath(opts.Dir))
		}
	}
	for i, j := range jvms {
		r, err := j.launch(opts.Dir, cmds[i])
		if err != nil {
			killAll()
			return nil, fmt.Errorf("start test environment: cluster %s: %w", j.name, err)
		}
		started = append(started, r)
		log.Info("harness JVM started", "cluster", j.name, "pid", r.cmd.Process.Pid, "log", j.logPath(opts.Dir))
	}

	timeout := opts.Timeout
	if timeout == 0 {
		timeout = 10 * time.Minute
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	ready := map[string]jvmReady{}
	for len(ready) < len(started) {
		select {
		case <-ctx.Done():
			killAll()
			return nil, fmt.Errorf("start test environment: %w", ctx.Err())
		case <-deadline.C:
			var late []string
			for _, r := range started {
				if _, ok := ready[r.name]; !ok {
					late = append(late, r.name)
				}
			}
			killAll()
			return nil, fmt.Errorf("start test environment: cluster %s not ready after %s; killed every harness JVM; see %s",
				strings.Join(late, ", "), timeout, jvm{name: late[0]}.logPath(opts.Dir))
		case <-tick.C:
		}
		for _, r := range started {
			select {
			case err := <-r.exited:
				r.exited <- err // killAll waits for it again
				killAll()
				return nil, fmt.Errorf("start test environment: cluster %s: harness JVM exited before it was ready (%v); stopped the others\n%s",
					r.name, err, r.tails(opts.Dir))
			default:
			}
			if _, ok := ready[r.name]; ok {
				continue
			}
			b, err := os.ReadFile(r.readyPath(opts.Dir))
			if err != nil {
				continue
			}
			var rd jvmReady
			if err := json.Unmarshal(b, &rd); err != nil {
				killAll()
				return nil, fmt.Errorf("start test environment: cluster %s: parse %s: %w", r.name, r.readyPath(opts.Dir), err)
			}
			ready[r.name] = rd
			log.Info("cluster ready", "cluster", r.name, "took", time.Since(t0).Round(100*time.Millisecond))
		}
	}
	b, err := composeClusters(opts.Dir, jvms, ready)
	if err == nil && len(started) > 1 {
		err = watchPeers(ctx, ready)
	}
	if err == nil {
		err = writeAtomic(filepath.Join(opts.Dir, "clusters.json"), b)
	}
	if err != nil {
		killAll()
		return nil, fmt.Errorf("start test environment: %w", err)
	}
	e, err := Load(opts.Dir)
	if err != nil {
		killAll()
		return nil, fmt.Errorf("start test environment: %w", err)
	}
	log.Info("test environment ready", "took", time.Since(t0).Round(100*time.Millisecond),
		"hbase", e.HBaseVersion, "hadoop", e.HadoopVersion, "jvms", len(started))
	return e, nil
}

// command builds the java command line of a harness JVM.
func (j jvm) command(opts StartOptions) (*exec.Cmd, error) {
	s := j.specs[0] // specs sharing a JVM agree on what follows (checkSpecs)
	cpFile := s.Classpath
	if cpFile == "" {
		cpFile = filepath.Join(opts.HarnessDir, "target", "classpath.txt")
	}
	cp, err := os.ReadFile(cpFile)
	if err != nil {
		return nil, fmt.Errorf("%w (build the harness first: make testenv-build)", err)
	}
	java := filepath.Join(s.JavaHome, "bin", "java")
	if s.JavaHome == "" {
		if java, err = exec.LookPath("java"); err != nil {
			return nil, fmt.Errorf("%w (install JDK 17)", err)
		}
	}
	heap := s.Heap
	if heap == "" {
		heap = opts.Heap
	}
	if heap == "" {
		heap = strconv.Itoa(3*len(j.specs)) + "g"
	}
	args := jvmFlags()
	args = append(args,
		"-Xmx"+heap,
		"-Drangecopy.testenv.log="+j.logPath(opts.Dir),
		"-Dhbase.testing.preserve.testdir=false",
		"-cp", filepath.Join(opts.HarnessDir, "target", "classes")+string(os.PathListSeparator)+strings.TrimSpace(string(cp)),
		"rangecopy.testenv.Harness", "--dir", opts.Dir, "--ready", j.readyPath(opts.Dir))
	for _, sp := range j.specs {
		args = append(args, "--spec", specPath(opts.Dir, sp.Name))
	}
	cmd := exec.Command(java, args...)
	cmd.Dir = opts.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd, nil
}

// launch starts the JVM with its standard output and error in its .out file
// and writes its pid file.
func (j jvm) launch(dir string, cmd *exec.Cmd) (*running, error) {
	out, err := os.OpenFile(j.outPath(dir), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	r := &running{jvm: j, cmd: cmd, exited: make(chan error, 1)}
	go func() { r.exited <- cmd.Wait() }()
	if err := os.WriteFile(j.pidPath(dir), []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644); err != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-r.exited
		return nil, err
	}
	return r, nil
}

// tails returns the ends of a JVM's standard output and log, for an error.
func (j jvm) tails(dir string) string {
	var b strings.Builder
	for _, p := range []string{j.outPath(dir), j.logPath(dir)} {
		if t := logTail(p, 25); t != "" {
			fmt.Fprintf(&b, "--- end of %s:\n%s\n", p, t)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// watchPeers has every harness JVM watch the others' pids, so that one
// that dies takes the others down instead of leaving half an environment.
func watchPeers(ctx context.Context, ready map[string]jvmReady) error {
	for name, r := range ready {
		var pids []int
		for other, o := range ready {
			if other != name {
				pids = append(pids, o.PID)
			}
		}
		ctl := &control{addr: r.Control, http: &http.Client{Timeout: time.Minute}}
		if err := ctl.post(ctx, "/watch", map[string]any{"pids": pids}, nil); err != nil {
			return fmt.Errorf("cluster %s: %w", name, err)
		}
	}
	return nil
}

// writeAtomic writes a file through a temporary file and a rename, so that a
// reader sees all of it or nothing.
func writeAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// pidFiles lists the pid files of harness JVMs in dir: one a JVM, and the
// single-JVM layout's harness.pid of older harnesses.
func pidFiles(dir string) ([]string, error) {
	m, err := filepath.Glob(filepath.Join(dir, "harness-*.pid"))
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, "harness.pid")); err == nil {
		m = append(m, filepath.Join(dir, "harness.pid"))
	}
	return m, nil
}

// Stop shuts down the harness whose state is in dir: SIGTERM to every JVM
// (each stops its clusters cleanly), then SIGKILL of the process group of
// any that has not exited within grace. A directory with nothing running is
// not an error.
func Stop(ctx context.Context, dir string, grace time.Duration) error {
	files, err := pidFiles(dir)
	if err != nil {
		return fmt.Errorf("stop test environment: %w", err)
	}
	pids := map[string]int{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("stop test environment: %w", err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 1 {
			return fmt.Errorf("stop test environment: bad pid file %s: %q", f, b)
		}
		if !harnessOf(pid, dir) {
			// Gone, or the pid is another process's now (a harness killed long
			// ago, a reboot): nothing of ours to stop.
			if err := os.Remove(f); err != nil {
				return fmt.Errorf("stop test environment: %w", err)
			}
			continue
		}
		if err := syscall.Kill(pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("stop test environment: signal %d: %w", pid, err)
		}
		pids[f] = pid
	}
	deadline := time.Now().Add(grace)
	for anyAlive(pids) && time.Now().Before(deadline) {
		if retry.Sleep(ctx, 200*time.Millisecond) != nil {
			break
		}
	}
	var stuck []string
	for f, pid := range pids {
		if alive(pid) {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			_ = syscall.Kill(pid, syscall.SIGKILL)
			for i := 0; i < 50 && alive(pid); i++ {
				time.Sleep(100 * time.Millisecond)
			}
		}
		if alive(pid) {
			stuck = append(stuck, fmt.Sprintf("%d (%s)", pid, filepath.Base(f)))
			continue
		}
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("stop test environment: %w", err)
		}
	}
	if len(stuck) > 0 {
		return fmt.Errorf("stop test environment: harness JVM %s still alive after SIGKILL", strings.Join(stuck, ", "))
	}
	if err := os.Remove(filepath.Join(dir, "clusters.json")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("stop test environment: %w", err)
	}
	return nil
}

// harnessOf reports whether pid is a harness JVM of the state directory
// dir: its command line runs rangecopy.testenv.Harness with --dir dir.
func harnessOf(pid int, dir string) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	args := strings.Split(string(b), "\x00")
	harness := false
	for i, a := range args {
		if a == "rangecopy.testenv.Harness" {
			harness = true
		}
		if harness && a == "--dir" && i+1 < len(args) && args[i+1] == dir {
			return true
		}
	}
	return false
}

// anyAlive reports whether one of the processes is alive.
func anyAlive(pids map[string]int) bool {
	for _, pid := range pids {
		if alive(pid) {
			return true
		}
	}
	return false
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
