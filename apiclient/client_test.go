package apiclient_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"rangecopy/api"
	"rangecopy/apiclient"
	"rangecopy/internal/servertest"
	"rangecopy/testenv"
	"rangecopy/testenv/copytest"
)

func newClient(t *testing.T, url, token string) *apiclient.Client {
	t.Helper()
	c, err := apiclient.New(url, apiclient.Options{Token: token, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// wantAPIError checks that err is an API error of the status whose message says want.
func wantAPIError(t *testing.T, what string, err error, status int, want ...string) *apiclient.Error {
	t.Helper()
	var e *apiclient.Error
	if err == nil || apiclient.StatusOf(err) != status {
		t.Fatalf("%s: error %v, want status %d", what, err, status)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: error %q does not say %q", what, err, w)
		}
	}
	e, _ = err.(*apiclient.Error)
	return e
}

// TestClient drives a real server through the client: refusals and their problem details,
// clusters, a submission with an idempotency key, listing with filters and pages, pause,
// resume, bandwidth and cancel, and the event stream to the end.
func TestClient(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	srv := servertest.StartServer(t, env, 0) // no workers: the job stays planned until cancelled
	c := newClient(t, srv.URL, srv.Token)

	// No token: 401, saying what to send.
	_, err := newClient(t, srv.URL, "").ListJobs(ctx, apiclient.JobFilter{})
	wantAPIError(t, "no token", err, http.StatusUnauthorized, "401 Unauthorized", "no bearer token")
	_, err = newClient(t, srv.URL, "not-a-secret").GetJob(ctx, "x")
	wantAPIError(t, "bad token", err, http.StatusUnauthorized)

	// An unknown job: 404 naming it, everywhere.
	_, err = c.GetJob(ctx, "copy-nosuchjob")
	wantAPIError(t, "get", err, http.StatusNotFound, "GET /api/v1/jobs/copy-nosuchjob", "job copy-nosuchjob")
	_, err = c.PauseJob(ctx, "copy-nosuchjob")
	wantAPIError(t, "pause", err, http.StatusNotFound, "job copy-nosuchjob")
	fctx, fcancel := context.WithTimeout(ctx, 30*time.Second)
	_, err = c.Follow(fctx, "copy-nosuchjob", nil)
	fcancel()
	wantAPIError(t, "follow", err, http.StatusNotFound, "job copy-nosuchjob")

	for name, cl := range map[string]*testenv.Cluster{"src": env.Source, "tgt": env.Target} {
		if _, err := c.CreateCluster(ctx, name, api.ClusterInput{SiteFiles: servertest.SiteFiles(t, cl)}); err != nil {
			t.Fatal(err)
		}
	}
	_, err = c.CreateCluster(ctx, "src", api.ClusterInput{SiteFiles: servertest.SiteFiles(t, env.Source)})
	wantAPIError(t, "cluster twice", err, http.StatusConflict)
	cs, err := c.ListClusters(ctx)
	if err != nil || len(cs) != 2 || cs[0].Name != "src" || cs[1].Name != "tgt" || cs[0].HDFSRoot == "" {
		t.Fatalf("clusters %+v, %v", cs, err)
	}

	table := copytest.CreateSource(t, env, "apiclient")
	copytest.WriteRounds(t, env.Source, table, copytest.BinaryRows(16), 1, 1_700_000_000_000, false)
	target := testenv.UniqueName(t, "apiclient_t")
	copytest.DropTargetLater(t, env, target)
	sub := api.JobSubmission{Source: "src", Target: "tgt",
		CopyRequest: api.CopyRequest{Table: table, TargetTable: target, CreateTable: true}}

	// Bad fields: 400 naming each.
	bad := sub
	bad.Bandwidth = "fast"
	_, _, err = c.SubmitJob(ctx, bad, "")
	e := wantAPIError(t, "bad bandwidth", err, http.StatusBadRequest, "bandwidth")
	if len(e.Errors) == 0 || e.Errors[0].Location != "body.bandwidth" {
		t.Errorf("bad bandwidth: details %+v, want body.bandwidth", e.Errors)
	}
	bad = sub
	bad.Source = "nowhere"
	_, _, err = c.SubmitJob(ctx, bad, "")
	wantAPIError(t, "unknown source", err, http.StatusBadRequest, "source", `"nowhere"`)

	j, created, err := c.SubmitJob(ctx, sub, "key-"+table)
	if err != nil || !created || j.ID == "" || j.Table != table {
		t.Fatalf("submit: %+v created %v, %v", j, created, err)
	}
	again, created, err := c.SubmitJob(ctx, sub, "key-"+table)
	if err != nil || created || again.ID != j.ID {
		t.Fatalf("submit with the same key: %s created %v, %v; want %s again", again.ID, created, err, j.ID)
	}
	// Listing: filters and pages.
	page, err := c.ListJobs(ctx, apiclient.JobFilter{Table: table, Limit: 1})
	if err != nil || len(page.Jobs) != 1 || page.Jobs[0].ID != j.ID {
		t.Fatalf("list by table: %+v, %v", page, err)
	}
	none, err := c.AllJobs(ctx, apiclient.JobFilter{Table: table, States: []string{"done", "failed"}})
	if err != nil || len(none) != 0 {
		t.Fatalf("list done or failed: %+v, %v", none, err)
	}
	_, err = c.ListJobs(ctx, apiclient.JobFilter{States: []string{"sleeping"}})
	wantAPIError(t, "bad state filter", err, http.StatusBadRequest, "query.state")

	// Control, once the leading server has taken the job up.
	for deadline := time.Now().Add(2 * time.Minute); j.State == "pending"; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("job %s still pending after 2 minutes", j.ID)
		}
		if j, err = c.GetJob(ctx, j.ID); err != nil {
			t.Fatal(err)
		}
	}
	if j, err = c.PauseJob(ctx, j.ID); err != nil || j.State != "paused" {
		t.Fatalf("pause: %s, %v", j.State, err)
	}
	if j, err = c.ResumeJob(ctx, j.ID); err != nil || j.State == "paused" || j.State.Final() {
		t.Fatalf("resume: %s, %v", j.State, err)
	}
	if j, err = c.SetBandwidth(ctx, j.ID, "10MB/s"); err != nil || j.Progress.BandwidthLimit != 10e6 {
		t.Fatalf("bandwidth: %v, %v", j.Progress.BandwidthLimit, err)
	}
	_, err = c.SetBandwidth(ctx, j.ID, "quick")
	e = wantAPIError(t, "bad rate", err, http.StatusBadRequest, "bandwidth")
	if len(e.Errors) == 0 || e.Errors[0].Location != "body.bandwidth" || e.Errors[0].Value != "quick" {
		t.Errorf("bad rate: details %+v", e.Errors)
	}

	// Follow while it is cancelled: the stream shows the states and ends with the job.
	var states []string
	followed := make(chan api.JobOut, 1)
	go func() {
		end, err := c.Follow(ctx, j.ID, func(ev apiclient.Event) {
			if ev.State != nil {
				states = append(states, string(ev.State.State))
			}
		})
		if err != nil {
			t.Errorf("follow: %v", err)
		}
		followed <- end
	}()
	if _, err := c.CancelJob(ctx, j.ID); err != nil {
		t.Fatal(err)
	}
	select {
	case end := <-followed:
		if end.State != "cancelled" || end.ID != j.ID {
			t.Errorf("followed to %s (%s), want cancelled", end.State, end.ID)
		}
		if len(states) == 0 || states[len(states)-1] != "cancelled" {
			t.Errorf("state events %q, want them to end with cancelled", states)
		}
	case <-time.After(3 * time.Minute):
		t.Fatal("the event stream did not end within 3 minutes of the cancel")
	}
	got, err := c.GetJob(ctx, j.ID)
	if err != nil || got.State != "cancelled" {
		t.Errorf("get after cancel: %s, %v", got.State, err)
	}
	cancelled, err := c.AllJobs(ctx, apiclient.JobFilter{States: []string{"cancelled"}, Cluster: "src"})
	if err != nil || !slices.ContainsFunc(cancelled, func(o api.JobOut) bool { return o.ID == j.ID }) {
		t.Errorf("list cancelled of cluster src: %d jobs, %v", len(cancelled), err)
	}
}

func TestNewRefuses(t *testing.T) {
	for _, u := range []string{"", "ftp://h", "http://", "http://h/?x=1", "::"} {
		if _, err := apiclient.New(u, apiclient.Options{}); err == nil {
			t.Errorf("New(%q): no error", u)
		}
	}
	if _, err := apiclient.New("https://h", apiclient.Options{CAFile: "/nonexistent/ca.pem"}); err == nil || !strings.Contains(err.Error(), "CA file") {
		t.Errorf("missing CA file: %v", err)
	}
}
