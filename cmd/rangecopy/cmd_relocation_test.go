package main

import (
	"bytes"
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

// TestRelocationCommands drives rangecopy relocation against a real server: bad input is
// refused naming the field, a relocation is created, listed, shown and cancelled.
func TestRelocationCommands(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	srv := servertest.StartServer(t, env, 0)
	client, err := apiclient.New(srv.URL, apiclient.Options{Token: srv.Token})
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]*testenv.Cluster{"src": env.Source, "tgt": env.Target} {
		if _, err := client.CreateCluster(ctx, name, api.ClusterInput{SiteFiles: servertest.SiteFiles(t, c), User: c.User}); err != nil {
			t.Fatal(err)
		}
	}
	table := copytest.CreateSource(t, env, "relcli")
	copytest.DropTargetLater(t, env, table)
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(srv.Token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("RANGECOPY_SERVER", "")
	t.Setenv("RANGECOPY_TOKEN", "")
	cmd := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := run(ctx, args, &out, &errb)
		return code, out.String(), errb.String()
	}
	common := []string{"--server", srv.URL, "--token-file", tokenFile}
	if code, _, stderr := cmd("relocation", "list"); code != exitUsage || !strings.Contains(stderr, "--server is required") {
		t.Errorf("list without --server: %d %q", code, stderr)
	}
	code, _, stderr := cmd(append([]string{"relocation", "create", "--source", "src", "--target", "tgt", "--table", table,
		"--schedule", "every tuesday-ish"}, common...)...)
	if code == exitOK || !strings.Contains(stderr, "schedule") {
		t.Errorf("create with a bad schedule: %d %q; want an error naming the schedule", code, stderr)
	}
	code, out, stderr := cmd(append([]string{"relocation", "create", "--source", "src", "--target", "tgt", "--table", table,
		"--schedule", "@every 1h", "--json"}, common...)...)
	if code != exitOK {
		t.Fatalf("create: %d %q", code, stderr)
	}
	var id string
	for _, f := range strings.Split(out, `"`) {
		if strings.HasPrefix(f, "rel_") {
			id = f
			break
		}
	}
	if id == "" {
		t.Fatalf("create printed no relocation id: %s", out)
	}
	if code, out, stderr = cmd(append([]string{"relocation", "list"}, common...)...); code != exitOK || !strings.Contains(out, id) || !strings.Contains(out, table) {
		t.Errorf("list: %d %q %q", code, out, stderr)
	}
	if code, out, stderr = cmd(append([]string{"relocation", "status", id}, common...)...); code != exitOK || !strings.Contains(out, id) {
		t.Errorf("status: %d %q %q", code, out, stderr)
	}
	if code, _, stderr = cmd(append([]string{"relocation", "status", "rel_nosuch"}, common...)...); code == exitOK || !strings.Contains(stderr, "404") {
		t.Errorf("status of no relocation: %d %q", code, stderr)
	}
	if code, _, stderr = cmd(append([]string{"relocation", "cancel", id}, common...)...); code != exitOK {
		t.Errorf("cancel: %d %q", code, stderr)
	}
}

// TestRelocationCreateChecks: relocation create checks its schedule, margin, max-lag,
// families, rows and bandwidth with the server's parsers and refuses a bad one as a usage
// error (exit 2) without calling the server: --server is a closed loopback port, so a call
// would have failed with exit 1.
func TestRelocationCreateChecks(t *testing.T) {
	t.Setenv("RANGECOPY_TOKEN", "x")
	srv := "http://" + closedPort(t)
	base := []string{"relocation", "create", "--server", srv, "--source", "a", "--target", "b", "--table", "ns:t"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--schedule", "every tuesday-ish"}, `--schedule: cron expression "every tuesday-ish"`},
		{[]string{"--schedule", "0 0 30 2 *"}, "it never fires"},
		{[]string{"--schedule", "CRON_TZ=Mars/Olympus 0 2 * * *"}, "--schedule: "},
		{nil, "--schedule is required"},
		{[]string{"--schedule", "@every 1h", "--margin", "ten minutes"}, `--margin: "ten minutes" is not a duration`},
		{[]string{"--schedule", "@every 1h", "--margin", "-5m"}, "--margin: -5m is negative"},
		{[]string{"--schedule", "@every 1h", "--max-lag", "0s"}, "--max-lag: must be more than 0"},
		{[]string{"--schedule", "@every 1h", "--families", ","}, "is empty"},
		{[]string{"--schedule", "@every 1h", "--families", "a,,b"}, "name 2 of 3 is empty"},
		{[]string{"--schedule", "@every 1h", "--bandwidth", "fast"}, "--bandwidth"},
		{[]string{"--schedule", "@every 1h", "--start-row", "b", "--stop-row", "a"}, "--stop-row"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(t.Context(), append(append([]string{}, base...), tc.args...), &out, &errb)
			if code != exitUsage || !strings.Contains(errb.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errb.String(), exitUsage, tc.want)
			}
		})
	}
	// A good creation does reach for the server (and finds nobody there).
	var out, errb bytes.Buffer
	if code := run(t.Context(), append(base, "--schedule", "CRON_TZ=Europe/Berlin 0 2 * * *", "--margin", "15m"), &out, &errb); code != exitError {
		t.Errorf("good creation: exit %d, stderr %q; want %d from the closed port", code, errb.String(), exitError)
	}
}
