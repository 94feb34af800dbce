package main

import (
	"bytes"
	"context"
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
		{args: nil, code: exitUsage, stderr: "Commands:"},
		{args: []string{"--help"}, code: exitOK, stdout: "Commands:"},
		{args: []string{"help"}, code: exitOK, stdout: "version"},
		{args: []string{"version"}, code: exitOK, stdout: "rangecopy dev ("},
		{args: []string{"--version"}, code: exitOK, stdout: "rangecopy dev ("},
		{args: []string{"version", "--help"}, code: exitOK, stderr: "Usage: rangecopy version"},
		{args: []string{"help", "version"}, code: exitOK, stderr: "Usage: rangecopy version"},
		{args: []string{"version", "extra"}, code: exitUsage, stderr: `unexpected argument "extra"`},
		{args: []string{"version", "--bogus"}, code: exitUsage, stderr: "flag provided but not defined: -bogus"},
		{args: []string{"frobnicate"}, code: exitUsage, stderr: `unknown command "frobnicate"`},
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
