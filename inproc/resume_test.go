package inproc

import (
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"rangecopy/checkpoint"
	"rangecopy/internal/testsupport"
	"rangecopy/job"
	"rangecopy/master"
	"rangecopy/testenv"
)

// TestCopyKillAndResume runs rangecopy copy in a subprocess, kills it with
// SIGKILL once some files are loaded (as its checkpoints in the registry
// show), runs the same command again and checks that it resumed: the files
// loaded before the kill are not loaded again, and the target equals the
// source.
func TestCopyKillAndResume(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	bin := filepath.Join(t.TempDir(), "rangecopy")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "rangecopy/cmd/rangecopy")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	table := testenv.UniqueName(t, "kill")
	var splits [][]byte
	for i := 1; i < 16; i++ {
		splits = append(splits, []byte{byte(i * 16)})
	}
	if err := env.Source.CreateTable(ctx, table, sampleFamilies, splits); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Source.DeleteTable(ctx, table) })
	dropTargetLater(t, env, table)
	var rows [][]byte
	for i := 0; i < 256; i++ {
		rows = append(rows, []byte{byte(i), 'r', 0x00})
	}
	writeRounds(t, env.Source, table, rows, 2, time.Now().UnixMilli()-100_000, true)

	o := testOptions(t, env, job.Spec{Table: table})
	id := master.JobID(o.Source, o.Target, o.Spec)
	args := []string{"copy", "--source", env.Source.ConfDir, "--target", env.Target.ConfDir, "--table", table,
		"--create-table", "--workers", "1", "--zk-root", o.ZKRoot, "--work-dir", o.WorkRoot, "--user", o.User}
	first := testenv.StartProcess(t, processBound, bin, append(args, "--bandwidth", "16KiB/s")...)
	reg := openRegistry(t, env, o.ZKRoot)
	loaded := func() (files int64, tasks int) {
		ids, err := reg.Tasks(ctx, id)
		if err != nil {
			return 0, 0
		}
		for _, task := range ids {
			b, err := reg.TaskCheckpoint(ctx, id, task)
			if err != nil {
				continue
			}
			cp, err := checkpoint.Decode(task, b)
			if err == nil {
				files += cp.Files
			}
		}
		return files, len(ids)
	}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		if f, _ := loaded(); f >= 3 {
			break
		}
		if time.Now().After(deadline) {
			first.Kill()
			t.Fatalf("no 3 files loaded in 3 minutes; stderr:\n%s", first.Stderr())
		}
		time.Sleep(100 * time.Millisecond)
	}
	first.Kill()
	before, tasks := loaded()
	t.Logf("killed after %d files loaded of job %s (%d tasks)", before, id, tasks)
	if tasks != 16 || before >= 32 {
		t.Fatalf("at the kill: %d tasks, %d files loaded; want 16 tasks and fewer than 32 files", tasks, before)
	}

	// The first run's snapshot still pins the inputs its tasks name.
	if !hasSnapshot(t, env, master.SnapshotName(id)+"-") {
		t.Fatalf("snapshot %s of the killed job is gone", master.SnapshotName(id))
	}

	// The same command again, without --resume: the job id is derived.
	out, errb, err := testenv.RunProcess(t, processBound, bin, append(args, "--json")...)
	if err != nil {
		t.Fatalf("second run: %v\nstderr:\n%s", err, errb)
	}
	var rep job.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	t.Logf("second run: %+v", rep)
	if !strings.Contains(errb, "resuming job") {
		t.Errorf("second run did not say it resumed:\n%s", errb)
	}
	if rep.Job != id {
		t.Errorf("second run's job %s, want %s", rep.Job, id)
	}
	// Every task writes one file per family (the target is split like the
	// source): 32 files in all, of which the first run loaded `before`.
	if rep.FilesLoaded != 32-before {
		t.Errorf("second run loaded %d files; want %d (32 less the %d loaded before the kill)", rep.FilesLoaded, 32-before, before)
	}
	if after, _ := loaded(); after != 32 {
		t.Errorf("checkpoints count %d files loaded in all, want 32", after)
	}
	testsupport.Compare(t, env, testsupport.CompareSpec{SourceTable: table, TargetTable: table, Mode: testsupport.Raw})
	assertFinished(t, env, o, rep)
}

// processBound bounds each rangecopy process these tests run: a copy here
// takes seconds to a minute, so one still running after five is stuck, and
// testenv.Process stops it and shows its goroutines.
const processBound = 5 * time.Minute

// TestCopyInterruptAndResume stops a copy with SIGINT: it releases its
// claims at once (no waiting for a session to expire), says it was
// interrupted, and --resume <job-id> finishes it.
func TestCopyInterruptAndResume(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	bin := filepath.Join(t.TempDir(), "rangecopy")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "rangecopy/cmd/rangecopy").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	table := createSource(t, env, "intr")
	writeRounds(t, env.Source, table, binaryRows(200), 2, time.Now().UnixMilli()-100_000, true)
	dropTargetLater(t, env, table)
	o := testOptions(t, env, job.Spec{Table: table})
	id := master.JobID(o.Source, o.Target, o.Spec)
	args := []string{"copy", "--source", env.Source.ConfDir, "--target", env.Target.ConfDir, "--table", table,
		"--create-table", "--workers", "2", "--zk-root", o.ZKRoot, "--work-dir", o.WorkRoot, "--user", o.User}
	first := testenv.StartProcess(t, processBound, bin, append(args, "--bandwidth", "8KiB/s")...)
	reg := openRegistry(t, env, o.ZKRoot)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		c, err := reg.Count(ctx, id)
		if err == nil && c.Claimed > 0 {
			break
		}
		if time.Now().After(deadline) {
			first.Kill()
			t.Fatalf("no task claimed in 2 minutes:\n%s", first.Stderr())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := first.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := first.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("interrupted copy: %v, want exit status 1\n%s", err, first.Stderr())
	}
	if !strings.Contains(first.Stdout(), "interrupted") || !strings.Contains(first.Stderr(), "--resume "+id) {
		t.Errorf("interrupted copy does not say so, or how to resume:\nstdout %s\nstderr %s", first.Stdout(), first.Stderr())
	}
	c, err := reg.Count(ctx, id)
	if err != nil || c.Claimed != 0 || c.Done == c.Tasks {
		t.Errorf("after the interrupt: %+v, %v; want no claim left and the job unfinished", c, err)
	}
	j, err := reg.Job(ctx, id)
	if err != nil || j.State.Final() {
		t.Errorf("job after the interrupt: %+v, %v; want it unfinished", j, err)
	}

	out, errb, err := testenv.RunProcess(t, processBound, bin, append(args, "--resume", id)...)
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, errb)
	}
	t.Logf("resumed:\n%s", out)
	testsupport.Compare(t, env, testsupport.CompareSpec{SourceTable: table, TargetTable: table, Mode: testsupport.Raw})
}
