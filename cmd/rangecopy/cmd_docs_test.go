package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestCLIDocsUpToDate: docs/cli holds exactly the reference the commands
// generate, so it cannot drift from them. After changing a command, run
// go generate ./cmd/rangecopy.
func TestCLIDocsUpToDate(t *testing.T) {
	fresh := t.TempDir()
	var out, errb bytes.Buffer
	if code := run(t.Context(), []string{"docs", "--out", fresh}, &out, &errb); code != exitOK {
		t.Fatalf("docs: exit %d: %s", code, errb.String())
	}
	committed := filepath.Join("..", "..", "docs", "cli")
	names := func(dir string) []string {
		m, err := filepath.Glob(filepath.Join(dir, "*.md"))
		if err != nil {
			t.Fatal(err)
		}
		for i := range m {
			m[i] = filepath.Base(m[i])
		}
		return m
	}
	want, have := names(fresh), names(committed)
	if len(want) == 0 {
		t.Fatal("the docs command wrote no markdown")
	}
	if !slices.Equal(want, have) {
		t.Fatalf("docs/cli holds %q, the commands make %q: run go generate ./cmd/rangecopy", have, want)
	}
	for _, name := range want {
		w, err := os.ReadFile(filepath.Join(fresh, name))
		if err != nil {
			t.Fatal(err)
		}
		h, err := os.ReadFile(filepath.Join(committed, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(w, h) {
			t.Errorf("docs/cli/%s is out of date with the commands: run go generate ./cmd/rangecopy", name)
		}
	}
	for _, must := range []string{"rangecopy_copy.md", "rangecopy_job_wait.md", "rangecopy_hfile_inspect.md", "rangecopy_completion_bash.md"} {
		if !slices.Contains(want, must) {
			t.Errorf("the reference lacks %s", must)
		}
	}
}

// TestDocsCommandUsage: the hidden docs command wants --out and is not in
// the help.
func TestDocsCommandUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(t.Context(), []string{"docs"}, &out, &errb); code != exitUsage || !bytes.Contains(errb.Bytes(), []byte("--out is required")) {
		t.Errorf("docs without --out: exit %d, %q", code, errb.String())
	}
	out.Reset()
	if run(t.Context(), []string{"--help"}, &out, &errb); bytes.Contains(out.Bytes(), []byte("docs")) {
		t.Errorf("the help lists the hidden docs command:\n%s", out.String())
	}
}
