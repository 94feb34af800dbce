package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// mdLink matches a markdown link or image: [text](target) or ![alt](target).
var mdLink = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)\)`)

// TestDocLinks: every relative link of README.md and docs/ reaches a file or
// folder of the repository, and every #anchor a heading of the page it names;
// README's index names every page of docs/.
func TestDocLinks(t *testing.T) {
	root, _, err := module(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	pages := []string{filepath.Join(root, "README.md")}
	err = filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			pages = append(pages, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]map[string]bool{}
	anchorsOf := func(page string) map[string]bool {
		if a, ok := anchors[page]; ok {
			return a
		}
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		a := headingAnchors(string(b))
		anchors[page] = a
		return a
	}
	checked := 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, page)
		for _, target := range links(string(b)) {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			checked++
			file, frag, _ := strings.Cut(target, "#")
			dest := page
			if file != "" {
				dest = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s: link %q: %v", rel, target, err)
					continue
				}
			}
			if frag == "" {
				continue
			}
			if !strings.HasSuffix(dest, ".md") {
				t.Errorf("%s: link %q: an anchor into a page that is not markdown", rel, target)
				continue
			}
			if !anchorsOf(dest)[frag] {
				t.Errorf("%s: link %q: %s has no heading with the anchor #%s", rel, target, filepath.Base(dest), frag)
			}
		}
	}
	t.Logf("checked %d relative links in %d pages", checked, len(pages))
	if checked < 50 {
		t.Errorf("found only %d relative links: the link scanner broke", checked)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	indexed := map[string]bool{}
	for _, target := range links(string(readme)) {
		file, _, _ := strings.Cut(target, "#")
		indexed[filepath.Clean(file)] = true
	}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		rel, _ := filepath.Rel(root, d)
		if !indexed[filepath.ToSlash(rel)] {
			t.Errorf("README.md's documentation index does not link %s", rel)
		}
	}
}

// TestHeadingAnchors: anchors as GitHub makes them from headings.
func TestHeadingAnchors(t *testing.T) {
	got := headingAnchors("# A title\n```\n# not a heading\n```\n## The service (`server/`)\n" +
		"### rangecopy vs CopyTable: 2.8–3.2× (aim ≥ 10×)\n## Again\n## Again\n")
	for _, want := range []string{"a-title", "the-service-server", "rangecopy-vs-copytable-2832-aim--10", "again", "again-1"} {
		if !got[want] {
			t.Errorf("no anchor %q in %v", want, got)
		}
	}
	if got["not-a-heading"] {
		t.Errorf("a line in a code block made an anchor")
	}
	if l := links("see [a](x.md) and `[b](y.md)`\n```\n[c](z.md)\n```\n![d](p.png)\n"); strings.Join(l, " ") != "x.md p.png" {
		t.Errorf("links: %q", l)
	}
}

// links returns the link targets of a markdown page, outside code blocks and
// code spans.
func links(page string) []string {
	var out []string
	for _, line := range proseLines(page) {
		parts := strings.Split(line, "`")
		for i := 0; i < len(parts); i += 2 {
			for _, m := range mdLink.FindAllStringSubmatch(parts[i], -1) {
				out = append(out, m[1])
			}
		}
	}
	return out
}

// headingAnchors returns the anchors GitHub gives a page's headings:
// lower case, only letters, digits, spaces, hyphens and underscores kept,
// spaces made hyphens, a repeated one suffixed -1, -2 and so on.
func headingAnchors(page string) map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	for _, line := range proseLines(page) {
		text, ok := strings.CutPrefix(line, "#")
		if !ok {
			continue
		}
		text = strings.TrimLeft(text, "#")
		if !strings.HasPrefix(text, " ") {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(text)) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// proseLines returns a page's lines outside fenced code blocks.
func proseLines(page string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out = append(out, line)
		}
	}
	return out
}
