package faults

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// proc is a rangecopy process a test started (a master or a worker): its
// standard error, where it logs JSON lines, goes to a file the test reads.
type proc struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	exited  chan struct{} // closed when the process has exited
	waitErr error         // set before exited closes
}

// startProc starts the rangecopy binary with args, logging to a file in the
// test's temporary folder (or, when RANGECOPY_FAULTS_LOGS names a folder, in
// a folder of the test's name there, kept), and kills it (SIGKILL) when the
// test ends. A test that fails gets the tail of the process's log in its
// output.
func startProc(t *testing.T, name string, args ...string) *proc {
	t.Helper()
	dir := t.TempDir()
	if keep := os.Getenv("RANGECOPY_FAULTS_LOGS"); keep != "" {
		dir = filepath.Join(keep, t.Name())
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatalf("log folder %s: %v", dir, err)
		}
	}
	logPath := filepath.Join(dir, name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatalf("log file of %s: %v", name, err)
	}
	cmd := exec.Command(rangecopyBin, args...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		f.Close()
		t.Fatalf("start %s (rangecopy %s): %v", name, strings.Join(args, " "), err)
	}
	p := &proc{name: name, cmd: cmd, logPath: logPath, exited: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		f.Close()
		close(p.exited)
	}()
	t.Logf("started %s, pid %d: rangecopy %s", name, cmd.Process.Pid, strings.Join(args, " "))
	t.Cleanup(func() {
		p.signal(syscall.SIGKILL)
		<-p.exited
		if t.Failed() {
			p.logTail(t, 40)
		}
	})
	return p
}

// signal sends sig to the process unless it has exited.
func (p *proc) signal(sig syscall.Signal) error {
	select {
	case <-p.exited:
		return nil
	default:
	}
	if err := p.cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("signal %v to %s (pid %d): %w", sig, p.name, p.cmd.Process.Pid, err)
	}
	return nil
}

// kill sends sig and fails the test if it cannot.
func (p *proc) kill(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := p.signal(sig); err != nil {
		t.Fatal(err)
	}
	t.Logf("sent %v to %s (pid %d)", sig, p.name, p.cmd.Process.Pid)
}

// running reports whether the process has not exited.
func (p *proc) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// logLine is one line of a process's log: a JSON object of log/slog's
// JSONHandler, or a line that is not JSON (Raw only).
type logLine struct {
	Time  time.Time
	Level string
	Msg   string
	Attrs map[string]any
	Raw   string
}

// attr returns an attribute as a string ("" when missing).
func (l logLine) attr(key string) string {
	v, ok := l.Attrs[key]
	if !ok || v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

// lines reads and parses the process's log as it is now.
func (p *proc) lines(t *testing.T) []logLine {
	t.Helper()
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		t.Fatalf("read log of %s: %v", p.name, err)
	}
	return parseLog(b)
}

// parseLog parses JSON log lines; a line that is not a JSON object is kept
// as Raw, and a last line without its newline yet is left out.
func parseLog(b []byte) []logLine {
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[:i+1]
	} else {
		b = nil
	}
	var out []logLine
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		raw := sc.Text()
		l := logLine{Raw: raw}
		var m map[string]any
		if json.Unmarshal([]byte(raw), &m) == nil {
			l.Attrs = m
			l.Msg = l.attr("msg")
			l.Level = l.attr("level")
			if ts, err := time.Parse(time.RFC3339Nano, l.attr("time")); err == nil {
				l.Time = ts
			}
		}
		out = append(out, l)
	}
	return out
}

// find returns the process's log lines with message msg whose attributes
// match the key/value pairs given.
func (p *proc) find(t *testing.T, msg string, kv ...string) []logLine {
	t.Helper()
	return filterLines(p.lines(t), msg, kv...)
}

// filterLines keeps the lines with message msg and the attributes kv (key,
// value, key, value, ...).
func filterLines(lines []logLine, msg string, kv ...string) []logLine {
	var out []logLine
next:
	for _, l := range lines {
		if l.Msg != msg {
			continue
		}
		for i := 0; i+1 < len(kv); i += 2 {
			if l.attr(kv[i]) != kv[i+1] {
				continue next
			}
		}
		out = append(out, l)
	}
	return out
}

// logTail writes the last n lines of the process's log into the test's
// output.
func (p *proc) logTail(t *testing.T, n int) {
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		t.Logf("log of %s: %v", p.name, err)
		return
	}
	ls := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	t.Logf("last %d log lines of %s (%s):\n%s", len(ls), p.name, p.logPath, strings.Join(ls, "\n"))
}

// waitFor polls cond every 200 ms until it holds, and fails the test when
// deadline passes first. The deadline is a bound on waiting for something
// that must happen, never a pass criterion on speed.
func waitFor(t *testing.T, deadline time.Duration, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), deadline)
	defer cancel()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("waited %v for %s: not yet", deadline, what)
		case <-tick.C:
		}
	}
}

// commandBound bounds a rangecopy command whose context has a later deadline
// or none: the callers bound their commands by cmdDeadline, stepDeadline or
// jobDeadline, all shorter.
const commandBound = 10 * time.Minute

// rangecopy runs a short rangecopy command (copy --detach, job ...) to its
// end and returns its standard output and standard error.
//
// The command is bounded (commandBound, or ctx's deadline if sooner): one
// still running then gets SIGQUIT, so that its standard error shows where
// every goroutine was, and SIGKILL 5 s later.
func rangecopy(ctx context.Context, args ...string) (stdout, stderr string, err error) {
	var o, e bytes.Buffer
	ctx, cancel := context.WithTimeout(ctx, commandBound)
	defer cancel()
	cmd := exec.CommandContext(ctx, rangecopyBin, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGQUIT) }
	cmd.WaitDelay = 5 * time.Second
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	if err != nil {
		err = fmt.Errorf("rangecopy %s: %w (stderr: %s)", strings.Join(args, " "), err, strings.TrimSpace(e.String()))
	}
	return o.String(), e.String(), err
}
