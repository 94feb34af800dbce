package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/spf13/cobra"

	"rangecopy/api"
	"rangecopy/apiclient"
	"rangecopy/job"
	"rangecopy/master"
	"rangecopy/progress"
	"rangecopy/registry"
	"rangecopy/retry"
	"rangecopy/units"
)

// jobStatus is what "job status --json" prints.
type jobStatus struct {
	ID      string `json:"id"`
	State   string `json:"state"`
	Message string `json:"message,omitempty"`
	Table   string `json:"table,omitempty"`
	// Bandwidth is the job-wide read limit in bytes per second now (0:
	// none); BandwidthSetBy says where it comes from: "job" (its
	// --bandwidth) or "operator" (rangecopy job bandwidth).
	Bandwidth      float64     `json:"bandwidth"`
	BandwidthSetBy string      `json:"bandwidthSetBy"`
	Tasks          taskCounts  `json:"tasks"`
	Report         *job.Report `json:"report,omitempty"`
}

type taskCounts struct {
	Total   int `json:"total"`
	Pending int `json:"pending"`
	Claimed int `json:"claimed"`
	Done    int `json:"done"`
	Failed  int `json:"failed"`
}

// jobFlags are the flags every job action takes.
type jobFlags struct {
	registry registryFlags
	api      apiFlags
	log      logFlags
}

func newJobCommand() *cobra.Command {
	var f jobFlags
	c := &cobra.Command{
		Use:   "job <action>",
		Short: "status, list, cancel, pause, resume, wait for jobs in the registry or change their bandwidth",
		Long: `Follows and controls jobs through the registry in ZooKeeper: jobs submitted
with "rangecopy copy --detach", and those a "rangecopy copy" process runs.

With --server (or $RANGECOPY_SERVER) they talk to a rangecopy server's REST
API instead, as the holder of the bearer token in --token-file (or
$RANGECOPY_TOKEN): the jobs are those of its catalog, "job list" can filter
them, and "job status --json" prints the job as the API shows it. --server
and --zk do not go together. Flags may come before or after the job id.`,
		Example: `  rangecopy job status copy-ns.events-3f0c2a... --zk zk1,zk2,zk3:2181
  rangecopy job wait copy-ns.events-3f0c2a... --zk zk1,zk2,zk3:2181 --timeout 24h
  RANGECOPY_ZK=zk1,zk2,zk3:2181 rangecopy job list
  rangecopy job wait copy-ns.events-3f0c2a... --server https://rc1:8080 --token-file ~/.rangecopy-token
  RANGECOPY_SERVER=http://rc1:8080 RANGECOPY_TOKEN=... rangecopy job list --state running,paused`,
		Args: cobra.ArbitraryArgs,
		RunE: needSubcommand("job action"),
	}
	f.registry.add(c.PersistentFlags(), "-")
	f.api.add(c.PersistentFlags())
	f.log.add(c.PersistentFlags())
	f.log.complete(c)

	var jsonOut bool
	status := &cobra.Command{
		Use:   "status <job-id>",
		Short: "state, tasks by status and the report the master stored",
		Args:  jobIDArg,
		RunE: func(c *cobra.Command, args []string) error {
			return withJobs(c, f, func(ctx context.Context, reg *registry.Registry) error {
				return jobStatusOf(ctx, reg, args[0], jsonOut, c.OutOrStdout())
			}, func(ctx context.Context, api *apiclient.Client) error {
				j, err := api.GetJob(ctx, args[0])
				if err != nil {
					return err
				}
				if jsonOut {
					return writeJobJSON(c.OutOrStdout(), j)
				}
				return writeJobText(c.OutOrStdout(), j)
			})
		},
	}
	status.Flags().BoolVar(&jsonOut, "json", false, "print JSON")
	var filter apiclient.JobFilter
	list := &cobra.Command{
		Use:   "list",
		Short: "every job with its state",
		Args:  noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return withJobs(c, f, func(ctx context.Context, reg *registry.Registry) error {
				return jobList(ctx, reg, jsonOut, c.OutOrStdout())
			}, func(ctx context.Context, api *apiclient.Client) error {
				return restJobList(ctx, api, filter, jsonOut, c.OutOrStdout())
			}, "state", "table", "cluster")
		},
	}
	list.Flags().BoolVar(&jsonOut, "json", false, "print JSON")
	list.Flags().StringSliceVar(&filter.States, "state", nil, "with --server: only jobs in these states (pending, planning, running, paused, cancelling, done, failed, cancelled, lost)")
	list.Flags().StringVar(&filter.Table, "table", "", "with --server: only jobs of this source table")
	list.Flags().StringVar(&filter.Cluster, "cluster", "", "with --server: only jobs whose source or target is this registered cluster")
	control := func(action, short, long string) *cobra.Command {
		return &cobra.Command{
			Use:   action + " <job-id>",
			Short: short,
			Long:  long,
			Args:  jobIDArg,
			RunE: func(c *cobra.Command, args []string) error {
				return withJobs(c, f, func(ctx context.Context, reg *registry.Registry) error {
					return jobControl(ctx, reg, args[0], action, c.OutOrStdout())
				}, func(ctx context.Context, api *apiclient.Client) error {
					return restJobControl(ctx, api, args[0], action, c.OutOrStdout())
				})
			},
		}
	}
	var timeout time.Duration
	wait := &cobra.Command{
		Use:   "wait <job-id>",
		Short: "wait until the job ends",
		Long: `Waits until the job ends: exit status 0 when it is done, 1 when it failed or was
cancelled. With --server it follows the job's event stream, with a progress
bar when stderr is a terminal (log lines otherwise).`,
		Args: jobIDArg,
		RunE: func(c *cobra.Command, args []string) error {
			return withJobs(c, f, func(ctx context.Context, reg *registry.Registry) error {
				return jobWait(ctx, reg, args[0], timeout, c.OutOrStdout(), c.ErrOrStderr())
			}, func(ctx context.Context, api *apiclient.Client) error {
				if _, err := followJob(ctx, api, args[0], timeout, c.ErrOrStderr()); err != nil {
					return err
				}
				_, err := fmt.Fprintf(c.OutOrStdout(), "job %s: done\n", args[0])
				return err
			})
		},
	}
	wait.Flags().DurationVar(&timeout, "timeout", 0, "give up after this long (default no limit)")
	bandwidth := &cobra.Command{
		Use:   "bandwidth <job-id> <rate>",
		Short: "change the job-wide read limit of a job, while it runs",
		Long: `Sets the job-wide read limit of a job from now on, overriding its --bandwidth:
a rate such as 50MB/s or 1.5GiB/s, or 0 for no limit. The workers serving the
job take the new limit at their next refresh (within seconds), each its share
of it; "rangecopy job status" shows it. A "rangecopy copy" process running a
job of its own keeps the limit it started with.`,
		Example: `  rangecopy job bandwidth copy-ns.events-3f0c2a... 50MB/s --zk zk1,zk2,zk3:2181
  rangecopy job bandwidth copy-ns.events-3f0c2a... 0 --zk zk1,zk2,zk3:2181`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageErrorf("%s takes a job id and a rate, got %d arguments", commandName(c), len(args))
			}
			return jobIDArg(c, args[:1])
		},
		RunE: func(c *cobra.Command, args []string) error {
			rate, err := units.ParseLimit(args[1])
			if err != nil {
				return usageErrorf("rate: %v", err)
			}
			return withJobs(c, f, func(ctx context.Context, reg *registry.Registry) error {
				return jobBandwidth(ctx, reg, args[0], rate, c.OutOrStdout())
			}, func(ctx context.Context, api *apiclient.Client) error {
				j, err := api.SetBandwidth(ctx, args[0], args[1])
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(c.OutOrStdout(), "job %s: bandwidth %s\n", j.ID, bandwidthText(j.Progress.BandwidthLimit))
				return err
			})
		},
	}
	c.AddCommand(status, list,
		control("cancel", "stop the job and remove its work folder and snapshot",
			`Stops the job: workers stop its tasks, the master removes its work folder and
snapshot and stores what was copied. The target keeps every file already
loaded, each whole.`),
		control("pause", "stop handing out the job's tasks",
			`Stops handing out the job's tasks; running ones stop at their checkpoint and
are released. "rangecopy job resume" goes on from there.`),
		control("resume", "run a paused job again",
			"Runs a paused job again; failed tasks get a new round of retries."),
		wait, bandwidth)
	return c
}

// jobBandwidth sets a job's bandwidth override.
func jobBandwidth(ctx context.Context, reg *registry.Registry, id string, rate float64, w io.Writer) error {
	j, err := reg.Job(ctx, id)
	if err != nil {
		return notFoundErr(id, err)
	}
	if j.State.Final() {
		return fmt.Errorf("job %s is %s already: its bandwidth cannot change", id, j.State)
	}
	if err := reg.SetBandwidth(ctx, id, rate); err != nil {
		return notFoundErr(id, err)
	}
	_, err = fmt.Fprintf(w, "job %s: bandwidth %s\n", id, bandwidthText(rate))
	return err
}

// bandwidthText is a limit for people: "47.7 MiB/s", or "no limit".
func bandwidthText(rate float64) string {
	if rate <= 0 {
		return "no limit"
	}
	return progress.Bytes(int64(rate)) + "/s"
}

// jobIDArg takes one valid job id.
func jobIDArg(c *cobra.Command, args []string) error {
	if len(args) != 1 {
		return usageErrorf("%s takes one job id, got %d arguments", commandName(c), len(args))
	}
	if err := registry.ValidateJobID(args[0]); err != nil {
		return usageErrorf("job id %q: %v", args[0], err)
	}
	return nil
}

// withJobs runs a job action over the REST API when the flags name a server (--server or
// $RANGECOPY_SERVER), else over the registry; the flags serverOnly name go only with a
// server.
func withJobs(c *cobra.Command, f jobFlags, zk func(context.Context, *registry.Registry) error,
	rest func(context.Context, *apiclient.Client) error, serverOnly ...string) error {
	if err := f.log.check(); err != nil {
		return err
	}
	remote, err := useServer(c.Flags(), f.api)
	if err != nil {
		return err
	}
	if !remote {
		if err := noServerFlags(c.Flags(), serverOnly...); err != nil {
			return err
		}
		return withRegistry(c, f, zk)
	}
	if err := onlyWithoutServer(c.Flags(), "the server reaches the registry itself", "zk-root"); err != nil {
		return err
	}
	api, err := f.api.client()
	if err != nil {
		return err
	}
	return rest(c.Context(), api)
}

// restJobList prints every job the filter selects, page after page.
func restJobList(ctx context.Context, client *apiclient.Client, f apiclient.JobFilter, jsonOut bool, w io.Writer) error {
	jobs, err := client.AllJobs(ctx, f)
	if err != nil {
		return err
	}
	if jsonOut {
		if jobs == nil {
			jobs = []api.JobOut{}
		}
		return json.NewEncoder(w).Encode(jobs)
	}
	for _, j := range jobs {
		if _, err := fmt.Fprintf(w, "%-60s %-10s %s\n", j.ID, j.State, j.Message); err != nil {
			return err
		}
	}
	return nil
}

// restJobControl pauses, resumes or cancels a job over the API.
func restJobControl(ctx context.Context, client *apiclient.Client, id, action string, w io.Writer) error {
	var j api.JobOut
	var err error
	switch action {
	case "pause":
		j, err = client.PauseJob(ctx, id)
	case "resume":
		j, err = client.ResumeJob(ctx, id)
	default:
		j, err = client.CancelJob(ctx, id)
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "job %s: %s\n", id, j.State)
	return err
}

// withRegistry checks the flags, opens the registry and runs do with it.
func withRegistry(c *cobra.Command, f jobFlags, do func(context.Context, *registry.Registry) error) error {
	if err := f.log.check(); err != nil {
		return err
	}
	// The registry's own notices (session open and close) are noise here.
	reg, err := f.registry.open(c.Context(), slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	defer reg.Close()
	return do(c.Context(), reg)
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
		st.Bandwidth, st.BandwidthSetBy = rec.Options.Bandwidth, "job"
	}
	if bw, ok, err := reg.Bandwidth(ctx, id); err != nil {
		return st, fmt.Errorf("job %s: %w", id, err)
	} else if ok {
		st.Bandwidth, st.BandwidthSetBy = bw, "operator"
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
	if st.BandwidthSetBy != "" {
		fmt.Fprintf(w, "limit    %s (set by the %s)\n", bandwidthText(st.Bandwidth), st.BandwidthSetBy)
	}
	t := st.Tasks
	fmt.Fprintf(w, "tasks    %d: %d done, %d running, %d waiting, %d failed\n", t.Total, t.Done, t.Claimed, t.Pending, t.Failed)
	if st.Report != nil {
		r := st.Report
		_, err = fmt.Fprintf(w, "loaded   %d files, %s, %d cells (input of done tasks %s) in %.0f s\n",
			r.FilesLoaded, progress.Bytes(r.BytesLoaded), r.Cells, progress.Bytes(r.BytesRead), r.Seconds())
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
	j, err := master.Control(ctx, reg, id, master.Action(action))
	if err != nil {
		if errors.Is(err, registry.ErrNotFound) {
			return notFoundErr(id, err)
		}
		return err
	}
	_, err = fmt.Fprintf(w, "job %s: %s\n", id, j.State)
	return err
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
