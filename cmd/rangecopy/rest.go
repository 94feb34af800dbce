package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"rangecopy/api"
	"rangecopy/apiclient"
	"rangecopy/job"
	"rangecopy/progress"
)

// Environment variables of the REST mode.
const (
	serverEnv = "RANGECOPY_SERVER"
	tokenEnv  = "RANGECOPY_TOKEN"
)

// apiFlags reach a rangecopy server's REST API: --server, --token-file, --server-ca and
// --server-timeout.
type apiFlags struct {
	url, tokenFile, ca string
	timeout            time.Duration
	allowPlainHTTP     bool
}

func (s *apiFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&s.url, "server", "", "URL of a rangecopy server, http(s)://host:port: talk to its REST API instead of ZooKeeper (default $"+serverEnv+")")
	fs.StringVar(&s.tokenFile, "token-file", "", "file holding the server's bearer token (default: the token itself from $"+tokenEnv+")")
	fs.StringVar(&s.ca, "server-ca", "", "PEM file of the CA certificates to trust for an https --server (default the system's)")
	fs.DurationVar(&s.timeout, "server-timeout", apiclient.DefaultTimeout, "bound on each call to the server (not on following a job)")
	fs.BoolVar(&s.allowPlainHTTP, "allow-plain-http", false, "send the token to an http:// --server that is not this machine, in clear text (refused without)")
}

// serverURL is --server, else $RANGECOPY_SERVER.
func (s apiFlags) serverURL() string {
	if s.url != "" {
		return s.url
	}
	return os.Getenv(serverEnv)
}

// useServer decides between the REST API and ZooKeeper: --server (or $RANGECOPY_SERVER
// when --zk is not given) picks the API; --server and --zk together are refused.
func useServer(fs *pflag.FlagSet, s apiFlags) (bool, error) {
	zk := fs.Lookup("zk") != nil && fs.Changed("zk")
	if fs.Changed("server") {
		if zk {
			return false, usageErrorf("--server and --zk do not go together: the server reaches the registry itself")
		}
		if s.url == "" {
			return false, usageErrorf("--server: empty URL")
		}
		return true, nil
	}
	if zk {
		return false, nil
	}
	return os.Getenv(serverEnv) != "", nil
}

// noServerFlags refuses the REST flags when the command talks to ZooKeeper.
func noServerFlags(fs *pflag.FlagSet, names ...string) error {
	for _, n := range append([]string{"token-file", "server-ca", "allow-plain-http"}, names...) {
		if fs.Lookup(n) != nil && fs.Changed(n) {
			return usageErrorf("--%s goes with --server (or $%s)", n, serverEnv)
		}
	}
	return nil
}

// onlyWithoutServer refuses flags that mean nothing over the REST API.
func onlyWithoutServer(fs *pflag.FlagSet, why string, names ...string) error {
	for _, n := range names {
		if fs.Lookup(n) != nil && fs.Changed(n) {
			return usageErrorf("--%s does not go with --server: %s", n, why)
		}
	}
	return nil
}

// client makes the API client the flags name.
func (s apiFlags) client() (*apiclient.Client, error) {
	token := os.Getenv(tokenEnv)
	if s.tokenFile != "" {
		b, err := os.ReadFile(s.tokenFile)
		if err != nil {
			return nil, usageErrorf("--token-file: %v", err)
		}
		token = strings.TrimSpace(string(b))
		if token == "" {
			return nil, usageErrorf("--token-file %s is empty", s.tokenFile)
		}
	}
	if s.timeout <= 0 {
		return nil, usageErrorf("--server-timeout %s: must be positive", s.timeout)
	}
	c, err := apiclient.New(s.serverURL(), apiclient.Options{Token: token, CAFile: s.ca, Timeout: s.timeout,
		UserAgent: "rangecopy/" + version, AllowPlainHTTP: s.allowPlainHTTP})
	if err != nil {
		return nil, usageErrorf("--server: %v", err)
	}
	return c, nil
}

// newIdempotencyKey is a random key for one submission.
func newIdempotencyKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "rangecopy-cli-" + hex.EncodeToString(b[:])
}

// sampleOf is a job's progress as the progress printers take it.
func sampleOf(j api.JobOut) progress.Sample {
	p := j.Progress
	s := progress.Sample{At: time.Now(), Elapsed: time.Duration(p.ElapsedMs) * time.Millisecond,
		TasksTotal: int64(p.Tasks.Total), TasksDone: int64(p.Tasks.Done), TasksFailed: int64(p.Tasks.Failed),
		BytesTotal: p.BytesTotal, BytesRead: p.BytesDone, FilesLoaded: p.FilesLoaded, BytesLoaded: p.BytesLoaded,
		Retries: p.LoadRetries, Rate: p.BytesPerSecond}
	if p.EtaSeconds != nil {
		s.ETA = time.Duration(*p.EtaSeconds * float64(time.Second)).Round(time.Second)
	}
	if j.Report != nil {
		s.Cells = j.Report.Cells
	}
	if j.State == "done" && s.BytesTotal == 0 {
		s.BytesTotal = s.BytesRead
	}
	return s
}

// followJob follows a job's event stream to its end, with a progress bar on a terminal
// stderr (log lines of the state changes and, every 10 s, of the progress otherwise), and
// returns the job as it ended; an error when it did not end done (or within timeout).
func followJob(ctx context.Context, c *apiclient.Client, id string, timeout time.Duration, stderr io.Writer) (api.JobOut, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	var pr progress.Printer
	terminal := isTerminal(stderr)
	if terminal {
		pr = &progress.Terminal{W: stderr}
	} else {
		pr = &progress.Log{Logger: slog.New(slog.NewTextHandler(stderr, nil))}
	}
	var lastLog time.Time
	var state api.JobState
	shown := false
	end, err := c.Follow(ctx, id, func(ev apiclient.Event) {
		switch {
		case ev.State != nil && ev.State.State != state:
			state = ev.State.State
			if !terminal || state == "paused" {
				if shown && terminal {
					fmt.Fprintln(stderr)
				}
				msg := ""
				if ev.State.Message != "" {
					msg = ": " + ev.State.Message
				}
				fmt.Fprintf(stderr, "rangecopy: job %s is %s%s\n", id, state, msg)
			}
		case ev.Progress != nil:
			if terminal {
				pr.Update(sampleOf(*ev.Progress))
				shown = true
			} else if time.Since(lastLog) >= 10*time.Second {
				pr.Update(sampleOf(*ev.Progress))
				lastLog = time.Now()
			}
		}
	})
	if err != nil {
		if shown {
			fmt.Fprintln(stderr)
		}
		if ctx.Err() != nil && timeout > 0 {
			return end, fmt.Errorf("job %s: still %s after %s", id, orUnknown(string(state)), timeout)
		}
		return end, err
	}
	pr.Finish(sampleOf(end))
	if end.State != "done" {
		why := end.LastError
		if why == "" {
			why = end.Message
		}
		return end, fmt.Errorf("job %s %s: %s", id, end.State, why)
	}
	return end, nil
}

func orUnknown(s string) string {
	if s == "" {
		return "not ended"
	}
	return s
}

// jobReport is a job's report as the API shows it in the engine's type, which the text
// report renders.
func jobReport(r api.JobReport) job.Report {
	var rep job.Report
	if b, err := json.Marshal(r); err == nil {
		_ = json.Unmarshal(b, &rep) // the same JSON
	}
	return rep
}

// writeJobJSON writes a job as the API shows it, indented.
func writeJobJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeJobText writes a job for a person.
func writeJobText(w io.Writer, j api.JobOut) error {
	fmt.Fprintf(w, "job      %s\nstate    %s\n", j.ID, j.State)
	if j.Message != "" {
		fmt.Fprintf(w, "message  %s\n", j.Message)
	}
	fmt.Fprintf(w, "copy     %s %s -> %s %s\n", j.Source, j.Table, j.Target, j.TargetTable)
	if j.SubmittedBy != "" {
		fmt.Fprintf(w, "by       %s at %s\n", j.SubmittedBy, j.SubmittedAt.Format(time.RFC3339))
	}
	p := j.Progress
	fmt.Fprintf(w, "limit    %s\n", bandwidthText(p.BandwidthLimit))
	t := p.Tasks
	fmt.Fprintf(w, "tasks    %d: %d done, %d running, %d waiting, %d failed\n", t.Total, t.Done, t.Running, t.Pending, t.Failed)
	fmt.Fprintf(w, "progress %.0f%%: %s\n", 100*p.Fraction, progress.Line(sampleOf(j)))
	if j.LastError != "" {
		fmt.Fprintf(w, "error    %s\n", j.LastError)
	}
	return nil
}
