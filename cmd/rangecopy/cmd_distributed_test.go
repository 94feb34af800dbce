package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestDistributedCommandsBadInput checks that master, worker, job and copy
// --detach answer bad command lines with a usage error naming what is
// wrong, before they reach any server.
func TestDistributedCommandsBadInput(t *testing.T) {
	t.Setenv("RANGECOPY_ZK", "")
	t.Setenv("RANGECOPY_SERVER", "")
	src, tgt := confDir(t, "zk1", "hdfs://nn:8020/hbase"), confDir(t, "zk2", "hdfs://nn2:8020/hbase")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"master"}, "--zk is required"},
		{[]string{"master", "--zk", "h:1", "--zk-root", "no-slash"}, "--zk-root"},
		{[]string{"master", "--zk", "h:1", "--log-format", "xml"}, `--log-format "xml": want text or json`},
		{[]string{"master", "--zk", "h:1", "stray"}, `unexpected argument "stray": master takes no arguments`},
		{[]string{"master", "-zk", "h:1", "-zk-root", "no-slash"}, "--zk-root"},
		{[]string{"master", "--zk", "h:1", "--session-timeout", "soon"}, `invalid argument "soon" for "--session-timeout" flag`},
		{[]string{"worker"}, "--zk is required"},
		{[]string{"worker", "--zk", "h:1", "--capacity", "0"}, "--capacity 0: want 1 to 256"},
		{[]string{"worker", "--zk", "h:1", "--session-timeout", "-1s"}, "--session-timeout -1s: must be positive"},
		{[]string{"job"}, "missing job action: want one of bandwidth, cancel, list, pause, resume, status, wait"},
		{[]string{"job", "--zk", "h:1", "status"}, "job status takes one job id, got 0 arguments"},
		{[]string{"job", "cancel", "j1", "--json", "--zk", "h:1"}, "unknown flag: --json"},
		{[]string{"job", "list", "--zk", "h:1", "--log-format", "xml"}, `--log-format "xml": want text or json`},
		{[]string{"job", "frob", "x"}, `unknown job action "frob"`},
		{[]string{"job", "status"}, "job status takes one job id"},
		{[]string{"job", "status", "a", "b"}, "job status takes one job id"},
		{[]string{"job", "list", "x"}, "job list takes no arguments"},
		{[]string{"job", "cancel", "bad/id", "--zk", "h:1"}, `job id "bad/id"`},
		{[]string{"job", "wait", "j1"}, "--zk is required"},
		{[]string{"copy", "--source", src, "--target", tgt, "--table", "t", "--detach", "--dry-run"}, "--detach does not go with --dry-run"},
		{[]string{"copy", "--source", src, "--target", tgt, "--table", "t", "--retries", "2"}, "--retries goes with --detach"},
		{[]string{"copy", "--source", src, "--target", tgt, "--table", "t", "--detach", "--retries", "-1"}, "--retries: -1: want 0 to 100"},
		{[]string{"copy", "--source", src, "--target", tgt, "--table", "t", "--zk-root", "x/"}, "--zk-root"},
		{[]string{"copy", "--source", src, "--target", tgt, "--table", "t", "--log-format", "xml"}, `--log-format "xml": want text or json`},
		{[]string{"copy", "--source", src, "--target", tgt, "--table", "t", "--workers", "many"}, `invalid argument "many" for "--workers" flag`},
		{[]string{"copy", "--source", src, "--target", tgt, "--table", "t", "stray"}, `unexpected argument "stray": copy takes no arguments`},
		{[]string{"copy", "--server", "http://h:1", "--zk", "h:1", "--source", "a", "--target", "b", "--table", "t"}, "--server and --zk do not go together"},
		{[]string{"copy", "--server", "http://h:1", "--source", "a", "--target", "b", "--table", "t", "--workers", "2"}, "--workers does not go with --server"},
		{[]string{"copy", "--server", "http://h:1", "--source", "a", "--target", "b", "--table", "t", "--bandwidth", "fast"}, "--bandwidth"},
		{[]string{"copy", "--server", "ftp://h", "--source", "a", "--target", "b", "--table", "t"}, "--server: server URL"},
		{[]string{"copy", "--source", src, "--target", tgt, "--table", "t", "--wait"}, "--wait goes with --server"},
		{[]string{"job", "list", "--zk", "h:1", "--state", "done"}, "--state goes with --server"},
		{[]string{"job", "status", "j1", "--server", "http://h:1", "--zk-root", "/x"}, "--zk-root does not go with --server"},
		{[]string{"job", "status", "j1", "--server", "http://h:1", "--token-file", "/nonexistent/token"}, "--token-file"},
	} {
		var out, errb bytes.Buffer
		code := run(t.Context(), tc.args, &out, &errb)
		if code != exitUsage || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and %q", tc.args, code, errb.String(), exitUsage, tc.want)
		}
	}
	// Every command's help names its flags and exits 0.
	for _, cmd := range [][]string{{"master"}, {"worker"}, {"job"}, {"job", "wait"}, {"copy"}} {
		var out, errb bytes.Buffer
		if code := run(t.Context(), append(cmd, "--help"), &out, &errb); code != exitOK || !strings.Contains(out.String(), "--zk string") {
			t.Errorf("%s --help: exit %d, %q", cmd, code, out.String())
		}
	}
}
