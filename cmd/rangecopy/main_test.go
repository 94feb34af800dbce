package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	tests := []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{args: nil, code: exitUsage, stderr: "Available Commands:"},
		{args: nil, code: exitUsage, stderr: "rangecopy: missing command: want one of cluster, copy, hfile, job, master, relocation, server, token, verify, version, worker\nRun 'rangecopy --help' for usage.\n"},
		{args: []string{"--help"}, code: exitOK, stdout: "Usage:\n  rangecopy <command> [flags]\n"},
		{args: []string{"-h"}, code: exitOK, stdout: "Available Commands:"},
		{args: []string{"-help"}, code: exitOK, stdout: "Available Commands:"},
		{args: []string{"help"}, code: exitOK, stdout: "version"},
		{args: []string{"version"}, code: exitOK, stdout: "rangecopy dev ("},
		{args: []string{"--version"}, code: exitOK, stdout: "rangecopy dev ("},
		{args: []string{"-version"}, code: exitOK, stdout: "rangecopy dev ("},
		{args: []string{"version", "--help"}, code: exitOK, stdout: "Usage:\n  rangecopy version [flags]"},
		{args: []string{"help", "version"}, code: exitOK, stdout: "Prints the version of this binary"},
		{args: []string{"version", "extra"}, code: exitUsage, stderr: `rangecopy version: unexpected argument "extra": version takes no arguments`},
		{args: []string{"version", "--bogus"}, code: exitUsage, stderr: "rangecopy version: unknown flag: --bogus\nRun 'rangecopy version --help' for usage."},
		{args: []string{"version", "-bogus"}, code: exitUsage, stderr: "unknown shorthand flag: 'b' in -bogus"},
		{args: []string{"frobnicate"}, code: exitUsage, stderr: `unknown command "frobnicate"`},
		{args: []string{"copi"}, code: exitUsage, stderr: `unknown command "copi": did you mean copy?`},
		{args: []string{"copy", "--help"}, code: exitOK, stdout: "rangecopy copy --source <cluster> --target <cluster> --table <table> [flags]"},
		{args: []string{"copy", "-h"}, code: exitOK, stdout: "  -v, --verbose "},
		{args: []string{"completion", "bash"}, code: exitOK, stdout: "bash completion V2 for rangecopy"},
		{args: []string{"completion", "zsh"}, code: exitOK, stdout: "#compdef rangecopy"},
		{args: []string{"completion", "fish"}, code: exitOK, stdout: "complete -c rangecopy"},
		{args: []string{"__complete", "job", ""}, code: exitOK, stdout: "status\t"},
		{args: []string{"__complete", "copy", "--log-format", ""}, code: exitOK, stdout: "text\njson\n"},
		{args: []string{"__complete", "copy", "--cre"}, code: exitOK, stdout: "--create-table\t"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tt.args, &stdout, &stderr)
			if code != tt.code {
				t.Errorf("exit code = %d, want %d (stderr %q)", code, tt.code, stderr.String())
			}
			if tt.stdout != "" && !strings.Contains(stdout.String(), tt.stdout) {
				t.Errorf("stdout = %q, want it to contain %q", stdout.String(), tt.stdout)
			}
			if tt.stderr != "" && !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("stderr = %q, want it to contain %q", stderr.String(), tt.stderr)
			}
		})
	}
}

// TestGoStyleFlags: flags written for Go's flag package (-name, -name=v)
// still work, and neither flag values nor what follows "--" are touched.
func TestGoStyleFlags(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"hfile", "inspect", "-cells", "-user", "hbase", "f"}, []string{"hfile", "inspect", "--cells", "--user", "hbase", "f"}},
		{[]string{"hfile", "inspect", "-user=hbase", "-values=true", "f"}, []string{"hfile", "inspect", "--user=hbase", "--values=true", "f"}},
		{[]string{"copy", "--start-row", "-table", "-table", "t"}, []string{"copy", "--start-row", "-table", "--table", "t"}},
		{[]string{"copy", "-retries", "-1", "-detach"}, []string{"copy", "--retries", "-1", "--detach"}},
		{[]string{"master", "-zk", "h:1", "-v", "--v"}, []string{"master", "--zk", "h:1", "-v", "-v"}},
		{[]string{"job", "status", "j1", "-json", "-zk", "h:1"}, []string{"job", "status", "j1", "--json", "--zk", "h:1"}},
		{[]string{"worker", "--", "-capacity", "-zk"}, []string{"worker", "--", "-capacity", "-zk"}},
		{[]string{"copy", "-bogus", "-vh"}, []string{"copy", "-bogus", "-vh"}},
		{[]string{"-version"}, []string{"--version"}},
		{[]string{"-help"}, []string{"--help"}},
		{[]string{"copy", "-help"}, []string{"copy", "--help"}},
	} {
		root := newRootCommand(&bytes.Buffer{}, &bytes.Buffer{})
		if got := goStyleFlags(root, tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("goStyleFlags(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
