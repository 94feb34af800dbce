package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rangecopy/api"
	"rangecopy/internal/servertest"
	"rangecopy/testenv"
	"rangecopy/testenv/copytest"
)

// TestClusterAndVerifyOverREST drives rangecopy cluster and rangecopy verify --server against
// a real server on the real clusters: both test clusters registered from their site-file
// folders, one by quorum that nobody answers at refused (and taken with --unchecked), listed,
// shown, removed; then a copy verified through the server (passed, exit 0) and, after more
// cells are written to the source, verified again (failed, exit 3, the differences counted).
func TestClusterAndVerifyOverREST(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	srv := servertest.StartServer(t, env, 2)
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(srv.Token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("RANGECOPY_ZK", "")
	t.Setenv("RANGECOPY_SERVER", srv.URL)
	t.Setenv("RANGECOPY_TOKEN", "")
	cmd := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := run(ctx, args, &out, &errb)
		return code, out.String(), errb.String()
	}
	auth := []string{"--token-file", tokenFile}
	runOK := func(args ...string) string {
		t.Helper()
		code, out, stderr := cmd(append(args, auth...)...)
		if code != exitOK {
			t.Fatalf("%q: exit %d, stderr %s", args, code, stderr)
		}
		return out
	}

	// Usage mistakes are found before any call.
	if code, _, stderr := cmd("cluster", "add", "x", "--site-dir", env.Source.ConfDir, "--zk-quorum", "127.0.0.1:1"); code != exitUsage || !strings.Contains(stderr, "--site-dir or --zk-quorum") {
		t.Errorf("add with both forms: %d %q", code, stderr)
	}
	if code, _, stderr := cmd("cluster", "add", "x"); code != exitUsage || !strings.Contains(stderr, "give --site-dir") {
		t.Errorf("add with neither: %d %q", code, stderr)
	}
	if code, _, stderr := cmd("cluster", "add", "x", "--site-dir", t.TempDir()); code != exitUsage || !strings.Contains(stderr, "holds none of") {
		t.Errorf("add an empty folder: %d %q", code, stderr)
	}
	if code, _, stderr := cmd("cluster", "show"); code != exitUsage || !strings.Contains(stderr, "needs the cluster's name") {
		t.Errorf("show without a name: %d %q", code, stderr)
	}
	// No token: the server's 401.
	if code, _, stderr := cmd("cluster", "list"); code != exitError || !strings.Contains(stderr, "401") {
		t.Errorf("list without a token: %d %q", code, stderr)
	}

	for name, c := range map[string]*testenv.Cluster{"src": env.Source, "tgt": env.Target} {
		out := runOK("cluster", "add", name, "--site-dir", c.ConfDir, "--user", c.User)
		if !strings.Contains(out, "cluster   "+name) || !strings.Contains(out, c.ZKQuorum) {
			t.Errorf("cluster add %s printed:\n%s", name, out)
		}
	}
	dead := closedPort(t)
	code, _, stderr := cmd(append([]string{"cluster", "add", "dead", "--zk-quorum", dead, "--hdfs-root", "hdfs://127.0.0.1:8020/hbase"}, auth...)...)
	if code != exitError || !strings.Contains(stderr, "400") || !strings.Contains(stderr, "ZooKeeper "+dead+" does not answer") {
		t.Errorf("add a quorum nobody answers at: %d %q", code, stderr)
	}
	runOK("cluster", "add", "dead", "--zk-quorum", dead, "--hdfs-root", "hdfs://127.0.0.1:8020/hbase", "--unchecked")
	if out := runOK("cluster", "list"); !strings.Contains(out, "src ") || !strings.Contains(out, "tgt ") || !strings.Contains(out, "dead ") {
		t.Errorf("cluster list:\n%s", out)
	}
	var shown api.ClusterOut
	if err := json.Unmarshal([]byte(runOK("cluster", "show", "src", "--json")), &shown); err != nil || shown.Name != "src" || shown.User != env.Source.User {
		t.Errorf("cluster show --json: %+v, %v", shown, err)
	}
	if out := runOK("cluster", "remove", "dead"); out != "cluster dead removed\n" {
		t.Errorf("cluster remove: %q", out)
	}
	if code, _, stderr := cmd(append([]string{"cluster", "show", "dead"}, auth...)...); code != exitError || !strings.Contains(stderr, "404") {
		t.Errorf("show a removed cluster: %d %q", code, stderr)
	}

	// verify --server: flags the server does not take are refused before any call.
	if code, _, stderr := cmd(append([]string{"verify", "--source", "src", "--target", "tgt", "--table", "t", "--parallelism", "2"}, auth...)...); code != exitUsage || !strings.Contains(stderr, "--parallelism does not go with --server") {
		t.Errorf("verify --server --parallelism: %d %q", code, stderr)
	}
	table := copytest.CreateSource(t, env, "cliver")
	copytest.WriteRounds(t, env.Source, table, copytest.BinaryRows(24), 2, 1_700_000_000_000, true)
	target := testenv.UniqueName(t, "cliver_t")
	copytest.DropTargetLater(t, env, target)
	runOK("copy", "--source", "src", "--target", "tgt", "--table", table, "--target-table", target, "--create-table", "--wait")

	code, out, stderr := cmd(append([]string{"verify", "--source", "src", "--target", "tgt", "--table", table, "--target-table", target}, auth...)...)
	if code != exitOK || !strings.Contains(out, ": passed\n") || !strings.Contains(out, "differ   0 cells") || !strings.Contains(stderr, "runs on "+srv.URL) {
		t.Errorf("verify --server of a copy: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	copytest.WriteRounds(t, env.Source, table, copytest.BinaryRows(24), 1, 1_700_000_100_000, false)
	code, out, stderr = cmd(append([]string{"verify", "--source", "src", "--target", "tgt", "--table", table, "--target-table", target, "--json"}, auth...)...)
	var v api.VerificationOutput
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("verify --server --json: %v\n%s\nstderr %s", err, out, stderr)
	}
	if code != exitDifferent || v.State != api.VerificationFailed || v.Report == nil || v.Report.DifferenceCount == 0 ||
		!strings.Contains(stderr, "differing cells") {
		t.Errorf("verify --server after more source writes: exit %d, state %s, report %+v\nstderr %s", code, v.State, v.Report, stderr)
	}
	t.Logf("verify --server after writes: %d cells differ, source %d cells, target %d", v.Report.DifferenceCount, v.Report.SourceCells, v.Report.TargetCells)
}
