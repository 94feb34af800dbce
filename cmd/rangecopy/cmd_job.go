package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"rangecopy/job"
	"rangecopy/master"
	"rangecopy/progress"
	"rangecopy/registry"
	"rangecopy/retry"
)

const jobUsage = `Usage: rangecopy job <status|list|cancel|pause|resume|wait> [<job-id>] --zk <host:port,...> [flags]

Follows and controls jobs through the registry in ZooKeeper:

  status <id>   state, tasks by status and the report the master stored
  list          every job with its state
  cancel <id>   stop the job: workers stop its tasks, the master removes its
                work folder and snapshot and stores what was copied; the target
                keeps every file already loaded (each whole)
  pause <id>    stop handing out the job's tasks; running ones stop at their
                checkpoint and are released
  resume <id>   run a paused job again; failed tasks get a new round of retries
  wait <id>     wait until the job ends: exit 0 when done, 1 when it failed or
                was cancelled

Flags:
`

// jobStatus is what "job status --json" prints.
type jobStatus struct {
	ID      string           `json:"id"`
	State   string           `json:"state"`
	Message string           `json:"message,omitempty"`
	Table   string           `json:"table,omitempty"`
	Tasks   taskCounts       `json:"tasks"`
	Report  *progress.Report `json:"report,omitempty"`
}

type taskCounts struct {
	Total   int `json:"total"`
	Pending int `json:"pending"`
	Claimed int `json:"claimed"`
	Done    int `json:"done"`
	Failed  int `json:"failed"`
}

func runJob(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var rf registryFlags
	var jsonOut bool
	var timeout time.Duration
	fs := flag.NewFlagSet("job", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, jobUsage); fs.PrintDefaults() }
	rf.add(fs, false)
	fs.BoolVar(&jsonOut, "json", false, "status and list: print JSON")
	fs.DurationVar(&timeout, "timeout", 0, "wait: give up after this long (default no limit)")
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if err := parseFlags(fs, args); errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return fmt.Errorf("%w: name an action: status, list, cancel, pause, resume or wait", errUsage)
	}
	action := args[0]
	// Flags may come before or after the job id.
	var pos []string
	for rest := args[1:]; ; {
		if err := parseFlags(fs, rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil
			}
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	var id string
	switch action {
	case "list":
		if len(pos) != 0 {
			return fmt.Errorf("%w: job list takes no arguments", errUsage)
		}
	case "status", "cancel", "pause", "resume", "wait":
		if len(pos) != 1 {
			return fmt.Errorf("%w: job %s takes one job id", errUsage, action)
		}
		id = pos[0]
		if err := registry.ValidateJobID(id); err != nil {
			return fmt.Errorf("%w: job id %q: %v", errUsage, id, err)
		}
	default:
		return fmt.Errorf("%w: unknown job action %q (want status, list, cancel, pause, resume or wait)", errUsage, action)
	}
	if _, err := rf.logger(stderr); err != nil {
		return err
	}
	// The registry's own notices (session open and close) are noise here.
	reg, err := rf.open(ctx, slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	defer reg.Close()
	switch action {
	case "list":
		return jobList(ctx, reg, jsonOut, stdout)
	case "status":
		return jobStatusOf(ctx, reg, id, jsonOut, stdout)
	case "wait":
		return jobWait(ctx, reg, id, timeout, stdout, stderr)
	}
	return jobControl(ctx, reg, id, action, stdout)
}

func notFoundErr(id string, err error) error {
	if errors.Is(err, registry.ErrNotFound) {
		return fmt.Errorf("job %s: no such job in the registry", id)
	}
	return fmt.Errorf("job %s: %w", id, err)
}

func statusOf(ctx context.Context, reg *registry.Registry, id string) (jobStatus, error) {
	j, err := reg.Job(ctx, id)
	if err != nil {
		return jobStatus{}, notFoundErr(id, err)
	}
	st := jobStatus{ID: id, State: j.State.String(), Message: j.Message}
	if rec, err := job.DecodeRecord(j.Spec); err == nil {
		st.Table = rec.Spec.Table
	}
	c, err := reg.Count(ctx, id)
	if err != nil {
		return st, fmt.Errorf("job %s: count tasks: %w", id, err)
	}
	st.Tasks = taskCounts{Total: c.Tasks, Pending: c.Pending, Claimed: c.Claimed, Done: c.Done, Failed: c.Failed}
	rep, ok, err := master.LoadReport(ctx, reg, id)
	if err != nil {
		return st, err
	}
	if ok {
		st.Report = &rep
	}
	return st, nil
}

func jobStatusOf(ctx context.Context, reg *registry.Registry, id string, jsonOut bool, w io.Writer) error {
	st, err := statusOf(ctx, reg, id)
	if err != nil {
		return err
	}
	if jsonOut {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	fmt.Fprintf(w, "job      %s\nstate    %s\n", st.ID, st.State)
	if st.Message != "" {
		fmt.Fprintf(w, "message  %s\n", st.Message)
	}
	if st.Table != "" {
		fmt.Fprintf(w, "table    %s\n", st.Table)
	}
	t := st.Tasks
	fmt.Fprintf(w, "tasks    %d: %d done, %d running, %d waiting, %d failed\n", t.Total, t.Done, t.Claimed, t.Pending, t.Failed)
	if st.Report != nil {
		r := st.Report
		_, err = fmt.Fprintf(w, "loaded   %d files, %s, %d cells (input of done tasks %s) in %.0f s\n",
			r.FilesLoaded, progress.Bytes(r.BytesLoaded), r.Cells, progress.Bytes(r.BytesRead), r.Seconds)
	}
	return err
}

func jobList(ctx context.Context, reg *registry.Registry, jsonOut bool, w io.Writer) error {
	ids, err := reg.Jobs(ctx)
	if err != nil {
		return err
	}
	type row struct {
		ID      string `json:"id"`
		State   string `json:"state"`
		Message string `json:"message,omitempty"`
	}
	rows := []row{}
	for _, id := range ids {
		j, err := reg.Job(ctx, id)
		if errors.Is(err, registry.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		rows = append(rows, row{id, j.State.String(), j.Message})
	}
	if jsonOut {
		return json.NewEncoder(w).Encode(rows)
	}
	for _, r := range rows {
		if _, err := fmt.Fprintf(w, "%-60s %-10s %s\n", r.ID, r.State, r.Message); err != nil {
			return err
		}
	}
	return nil
}

// jobControl moves a job to the state an action asks for.
func jobControl(ctx context.Context, reg *registry.Registry, id, action string, w io.Writer) error {
	var to registry.JobState
	var msg string
	switch action {
	case "cancel":
		to, msg = registry.JobCancelling, "cancelling: asked by an operator"
	case "pause":
		to, msg = registry.JobPaused, "paused by an operator"
	case "resume":
		to, msg = registry.JobRunning, "resumed by an operator"
	}
	j, err := reg.UpdateJob(ctx, id, func(j registry.Job) (registry.JobState, string, error) {
		switch {
		case j.State == to || (action == "cancel" && j.State == registry.JobCancelled):
			return j.State, j.Message, nil
		case j.State.Final():
			return 0, "", fmt.Errorf("job %s is %s already: it cannot be %s", id, j.State, pastOf(action))
		case action == "resume" && j.State != registry.JobPaused:
			return 0, "", fmt.Errorf("job %s is %s, not paused: there is nothing to resume", id, j.State)
		case action == "pause" && j.State != registry.JobRunning && j.State != registry.JobPlanning:
			return 0, "", fmt.Errorf("job %s is %s: only a running or planning job can be paused", id, j.State)
		}
		return to, msg, nil
	})
	if err != nil {
		if errors.Is(err, registry.ErrNotFound) {
			return notFoundErr(id, err)
		}
		return err
	}
	if action == "resume" {
		// A new round of retries for the tasks that used theirs.
		if err := reg.PutJobData(ctx, id, registry.NodeRetries, []byte("{}")); err != nil {
			return fmt.Errorf("job %s: clear retries: %w", id, err)
		}
	}
	_, err = fmt.Fprintf(w, "job %s: %s\n", id, j.State)
	return err
}

func pastOf(action string) string {
	return map[string]string{"cancel": "cancelled", "pause": "paused", "resume": "resumed"}[action]
}

// jobWait polls the job until it ends.
func jobWait(ctx context.Context, reg *registry.Registry, id string, timeout time.Duration, stdout, stderr io.Writer) error {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	said := ""
	for {
		j, err := reg.Job(ctx, id)
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("job %s: still %s after %s", id, said, timeout)
			}
			return notFoundErr(id, err)
		}
		if s := j.State.String(); s != said {
			if j.State == registry.JobPaused {
				fmt.Fprintf(stderr, "rangecopy: job %s is paused: %s\n", id, j.Message)
			}
			said = s
		}
		switch j.State {
		case registry.JobDone:
			_, err := fmt.Fprintf(stdout, "job %s: done\n", id)
			return err
		case registry.JobFailed, registry.JobCancelled:
			return fmt.Errorf("job %s %s: %s", id, j.State, j.Message)
		}
		if retry.Sleep(ctx, 2*time.Second) != nil {
			return fmt.Errorf("job %s: still %s after %s", id, said, timeout)
		}
	}
}
