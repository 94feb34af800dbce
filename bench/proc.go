package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Describe reads what a run records about the machine from /proc.
func Describe() Machine {
	m := Machine{CPUs: runtime.NumCPU(), LoadBefore: LoadAverage()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	if kb := procKB("/proc/meminfo", "MemTotal"); kb > 0 {
		m.MemoryGB = float64(kb) / (1 << 20)
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = "Linux " + strings.TrimSpace(string(b))
	}
	return m
}

// LoadAverage is the first three fields of /proc/loadavg.
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// procKB reads a "Key:   N kB" line of a /proc file; 0 when absent.
func procKB(file, key string) int64 {
	f, err := os.Open(file)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || k != key {
			continue
		}
		n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		return n
	}
	return 0
}

// SampleRSS samples the sum of processes' resident sets every interval
// until stop is called, which returns the largest sample in bytes (0 if none
// could be read).
func SampleRSS(pids []int, interval time.Duration) (stop func() int64) {
	var mu sync.Mutex
	var peak int64
	quit := make(chan struct{})
	done := make(chan struct{})
	sample := func() {
		var kb int64
		for _, pid := range pids {
			kb += procKB(fmt.Sprintf("/proc/%d/status", pid), "VmRSS")
		}
		mu.Lock()
		peak = max(peak, kb<<10)
		mu.Unlock()
	}
	go func() {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			sample()
			select {
			case <-quit:
				return
			case <-t.C:
			}
		}
	}()
	return func() int64 {
		close(quit)
		<-done
		sample()
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}

// Proc is a finished child process.
type Proc struct {
	Stdout  []byte
	Seconds float64
	// PeakRSS is the child's peak resident set (getrusage ru_maxrss).
	PeakRSS int64
	// CPUSeconds is the child's user and system CPU time.
	CPUSeconds float64
}

// RunProc runs argv with env added to this process's environment, stdin
// fed from stdin, standard error to stderrFile (when not nil), and returns
// its standard output, wall time and peak RSS. A failed command's error
// carries the end of its standard error.
func RunProc(ctx context.Context, argv []string, env []string, stdin []byte, stderrFile *os.File) (Proc, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errTail bytes.Buffer
	cmd.Stdout = &out
	if stderrFile != nil {
		cmd.Stderr = &tailWriter{w: stderrFile, tail: &errTail}
	} else {
		cmd.Stderr = &tailWriter{tail: &errTail}
	}
	start := time.Now()
	err := cmd.Run()
	p := Proc{Stdout: out.Bytes(), Seconds: time.Since(start).Seconds()}
	if cmd.ProcessState != nil {
		p.CPUSeconds = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			p.PeakRSS = ru.Maxrss << 10 // Linux reports KiB
		}
	}
	if err != nil {
		return p, fmt.Errorf("%s: %w: %s", argv[0], err, strings.TrimSpace(errTail.String()))
	}
	return p, nil
}

// tailWriter passes writes on to w (if any) and keeps the last 2 KiB.
type tailWriter struct {
	w    *os.File
	tail *bytes.Buffer
}

func (t *tailWriter) Write(p []byte) (int, error) {
	if t.w != nil {
		t.w.Write(p)
	}
	t.tail.Write(p)
	if t.tail.Len() > 4096 {
		b := t.tail.Bytes()
		keep := append([]byte(nil), b[len(b)-2048:]...)
		t.tail.Reset()
		t.tail.Write(keep)
	}
	return len(p), nil
}
