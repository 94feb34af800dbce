package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rangecopy/api"
	"rangecopy/apiclient"
	"rangecopy/internal/servertest"
	"rangecopy/testenv"
	"rangecopy/testenv/copytest"
)

// TestCopyOverREST runs the command tree against a real server: clusters registered
// through the API, "copy --server" submits a copy of a small table and prints its id,
// "job wait --server" follows it to done, "job status/list --server" show it, and the
// target holds the source's cells.
func TestCopyOverREST(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	srv := servertest.StartServer(t, env, 2)
	client, err := apiclient.New(srv.URL, apiclient.Options{Token: srv.Token})
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]*testenv.Cluster{"src": env.Source, "tgt": env.Target} {
		if _, err := client.CreateCluster(ctx, name, api.ClusterInput{SiteFiles: servertest.SiteFiles(t, c), User: c.User}); err != nil {
			t.Fatal(err)
		}
	}
	table := copytest.CreateSource(t, env, "clirest")
	copytest.WriteRounds(t, env.Source, table, copytest.BinaryRows(24), 2, 1_700_000_000_000, true)
	target := testenv.UniqueName(t, "clirest_t")
	copytest.DropTargetLater(t, env, target)

	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(srv.Token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("RANGECOPY_ZK", "")
	t.Setenv("RANGECOPY_SERVER", srv.URL)
	t.Setenv("RANGECOPY_TOKEN", "")
	runOK := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(ctx, args, &out, &errb); code != exitOK {
			t.Fatalf("%q: exit %d, stderr %s", args, code, errb.String())
		}
		return out.String()
	}

	// No token: the server's 401 names what is missing, exit 1.
	var out, errb bytes.Buffer
	if code := run(ctx, []string{"job", "list"}, &out, &errb); code != exitError || !strings.Contains(errb.String(), "401 Unauthorized") {
		t.Errorf("job list without a token: exit %d, stderr %q", code, errb.String())
	}
	// A cluster the server does not know: 400 naming the field.
	errb.Reset()
	if code := run(ctx, []string{"copy", "--server", srv.URL, "--token-file", tokenFile, "--source", "nowhere", "--target", "tgt",
		"--table", table}, &out, &errb); code != exitError || !strings.Contains(errb.String(), `no cluster "nowhere"`) {
		t.Errorf("copy from an unknown cluster: exit %d, stderr %q", code, errb.String())
	}

	id := strings.TrimSpace(runOK("copy", "--server", srv.URL, "--token-file", tokenFile, "--source", "src", "--target", "tgt",
		"--table", table, "--target-table", target, "--create-table"))
	if !strings.HasPrefix(id, "copy-") || strings.Contains(id, "\n") {
		t.Fatalf("copy --server printed %q, want a job id", id)
	}
	t.Setenv("RANGECOPY_TOKEN", srv.Token) // from here on the token comes from the environment
	if got := runOK("job", "wait", id, "--timeout", "5m"); got != "job "+id+": done\n" {
		t.Errorf("job wait: %q", got)
	}
	if got := runOK("job", "status", id); !strings.Contains(got, "state    done") || !strings.Contains(got, "100%") {
		t.Errorf("job status:\n%s", got)
	}
	if got := runOK("job", "list", "--state", "done", "--table", table); !strings.Contains(got, id) {
		t.Errorf("job list --state done: %q", got)
	}
	if got := runOK("job", "list", "--state", "running"); strings.Contains(got, id) {
		t.Errorf("job list --state running lists the done job: %q", got)
	}
	errb.Reset()
	if code := run(ctx, []string{"job", "pause", id}, &out, &errb); code != exitError || !strings.Contains(errb.String(), "409 Conflict") {
		t.Errorf("pause a done job: exit %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	if code := run(ctx, []string{"job", "status", "copy-nosuchjob"}, &out, &errb); code != exitError || !strings.Contains(errb.String(), "404 Not Found: job copy-nosuchjob") {
		t.Errorf("status of an unknown job: exit %d, stderr %q", code, errb.String())
	}
	if cells := copytest.AssertSame(t, env, table, target, nil, nil); cells == 0 {
		t.Error("no cells compared")
	}

	// copy --wait: follows the job and prints it as it ended.
	target2 := testenv.UniqueName(t, "clirest_w")
	copytest.DropTargetLater(t, env, target2)
	got := runOK("copy", "--source", "src", "--target", "tgt", "--table", table, "--target-table", target2,
		"--create-table", "--wait", "--json")
	var end api.JobOut
	if err := json.Unmarshal([]byte(got), &end); err != nil || end.State != "done" || end.TargetTable != target2 || end.Progress.Fraction != 1 {
		t.Errorf("copy --wait --json: %+v, %v\n%s", end, err, got)
	}
	copytest.AssertSame(t, env, table, target2, nil, nil)
}
