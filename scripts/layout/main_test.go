package main

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// TestLayoutUpToDate: docs/layout.md's package table is what the packages'
// doc comments make, so it cannot drift from them. After adding, renaming or
// re-documenting a package, run make docs.
func TestLayoutUpToDate(t *testing.T) {
	if err := run(t.Context(), "docs/layout.md", true, io.Discard); err != nil {
		t.Fatal(err)
	}
}

// TestRenderRefusesMissingDoc: a package without a doc comment fails the
// table, naming every such package.
func TestRenderRefusesMissingDoc(t *testing.T) {
	_, err := Render([]Package{
		{Path: "worker", Doc: "Package worker runs tasks.", InBinary: true},
		{Path: "api", Doc: "", InBinary: true},
		{Path: "internal/foo", Doc: "  ", InBinary: false},
	}, "..")
	if !errors.Is(err, ErrNoDoc) {
		t.Fatalf("want ErrNoDoc, got %v", err)
	}
	for _, name := range []string{"api/", "internal/foo/"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("the error does not name %s: %v", name, err)
		}
	}
	if strings.Contains(err.Error(), "worker/") {
		t.Errorf("the error names a documented package: %v", err)
	}
}

// TestRender: packages sorted by path into the binary's table and the rest,
// linked relative to the page, cells escaped.
func TestRender(t *testing.T) {
	got, err := Render([]Package{
		{Path: "worker", Doc: "Package worker runs a | b.", InBinary: true},
		{Path: "cmd/rangecopy", Doc: "Command rangecopy copies.", InBinary: true},
		{Path: "metrics", Doc: "Package metrics names rangecopy_<noun>_total, `a<b>`.", InBinary: true},
		{Path: "testenv", Doc: "Package testenv drives the clusters.", InBinary: false},
	}, "..")
	if err != nil {
		t.Fatal(err)
	}
	bin, rest, ok := strings.Cut(got, "### Tests, harness")
	if !ok {
		t.Fatalf("no second table:\n%s", got)
	}
	for _, want := range []string{
		"| [`cmd/rangecopy/`](../cmd/rangecopy) | Command rangecopy copies. |",
		"| [`worker/`](../worker) | Package worker runs a \\| b. |",
		"rangecopy_&lt;noun>_total, `a<b>`.",
	} {
		if !strings.Contains(bin, want) {
			t.Errorf("the binary's table lacks %q:\n%s", want, bin)
		}
	}
	if strings.Index(bin, "cmd/rangecopy/") > strings.Index(bin, "metrics/") || strings.Index(bin, "metrics/") > strings.Index(bin, "worker/") {
		t.Errorf("not sorted by path:\n%s", bin)
	}
	if strings.Contains(bin, "testenv") || !strings.Contains(rest, "[`testenv/`](../testenv)") {
		t.Errorf("testenv is not (only) in the second table:\n%s", got)
	}
}

// TestSplice: the table replaces what is between the markers and nothing
// else; a page without them is refused.
func TestSplice(t *testing.T) {
	page := "# Layout\n\nintro\n\n" + BeginMarker + "\nold table\n" + EndMarker + "\n\nafter\n"
	got, err := Splice([]byte(page), "new table\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "# Layout\n\nintro\n\n" + BeginMarker + "\nnew table\n" + EndMarker + "\n\nafter\n"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	again, err := Splice(got, "new table\n")
	if err != nil || string(again) != want {
		t.Errorf("splicing twice changed the page: %v\n%s", err, again)
	}
	if _, err := Splice([]byte("# Layout\n"), "t\n"); err == nil || !strings.Contains(err.Error(), "marker") {
		t.Errorf("a page without markers: %v", err)
	}
}
