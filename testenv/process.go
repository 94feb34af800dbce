package testenv

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Process is a program a test runs (a rangecopy binary, say), bounded in
// time: a process still running when its bound passes gets SIGQUIT (a Go
// program then prints every goroutine's stack on its standard error), then
// SIGKILL 5 s later, and the test fails, showing the end of its standard
// error. The test's end kills it too. So a test that waits for a process that
// hangs shows why within its bound rather than at the end of go test's
// timeout.
type Process struct {
	t     testing.TB
	name  string
	cmd   *exec.Cmd
	out   lockedBuffer
	err   lockedBuffer
	done  chan struct{}
	wait  error
	timer *time.Timer
	mu    sync.Mutex
	timed bool
}

// StartProcess starts path with args, bounded by bound (see Process).
func StartProcess(t testing.TB, bound time.Duration, path string, args ...string) *Process {
	t.Helper()
	p := &Process{t: t, name: path + " " + strings.Join(args, " "), cmd: exec.Command(path, args...), done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.err
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", p.name, err)
	}
	go func() {
		p.wait = p.cmd.Wait()
		close(p.done)
	}()
	p.timer = time.AfterFunc(bound, func() {
		p.mu.Lock()
		p.timed = true
		p.mu.Unlock()
		_ = p.cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
			_ = p.cmd.Process.Kill()
		}
	})
	t.Cleanup(func() {
		p.timer.Stop()
		_ = p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// RunProcess runs path with args to its end, bounded by bound, and returns
// its standard output and standard error.
func RunProcess(t testing.TB, bound time.Duration, path string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	p := StartProcess(t, bound, path, args...)
	err = p.Wait()
	return p.Stdout(), p.Stderr(), err
}

// Wait waits for the process to end and returns how it ended. A process
// stopped at its bound fails the test and returns an error that says so.
func (p *Process) Wait() error {
	<-p.done
	p.timer.Stop()
	p.mu.Lock()
	timed := p.timed
	p.mu.Unlock()
	if timed {
		p.t.Errorf("%s: still running after its bound; stopped (SIGQUIT, then SIGKILL). End of its standard error:\n%s", p.name, tail(p.Stderr(), 200))
		return fmt.Errorf("%s: stopped at its time bound: %w", p.name, errors.Join(p.wait, ErrTimedOut))
	}
	return p.wait
}

// ErrTimedOut is returned by Wait for a process stopped at its bound.
var ErrTimedOut = errors.New("process timed out")

// Signal sends sig to the process unless it has ended.
func (p *Process) Signal(sig syscall.Signal) error {
	select {
	case <-p.done:
		return nil
	default:
	}
	return p.cmd.Process.Signal(sig)
}

// Kill stops the process with SIGKILL and waits for it to end.
func (p *Process) Kill() {
	_ = p.Signal(syscall.SIGKILL)
	<-p.done
}

// Stdout is what the process wrote on its standard output so far.
func (p *Process) Stdout() string { return p.out.String() }

// Stderr is what the process wrote on its standard error so far.
func (p *Process) Stderr() string { return p.err.String() }

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// lockedBuffer is a bytes.Buffer safe for a process's writes and a test's
// reads at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
