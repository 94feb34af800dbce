// Command layout writes the package table of docs/layout.md from the
// packages' doc comments, as go list reports them, so the table cannot drift
// from the code: make docs runs it, and its test fails when the committed
// table differs from what it would write.
//
// Usage (from anywhere in the module):
//
//	go run ./scripts/layout [-file docs/layout.md] [-check]
//
// The table goes between the marker lines BeginMarker and EndMarker of the
// file; the text around them is left as it is. Every package of the module
// must have a doc comment: one without makes the command fail, naming it.
// The package's tests also check that every relative link of README.md and
// docs/ resolves, anchors included, and that README's index names every page
// of docs/.
package main

//go:generate go run .

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// The lines between which the generated table goes.
const (
	BeginMarker = "<!-- BEGIN GENERATED: package table (make docs; edit the packages' doc comments, not this) -->"
	EndMarker   = "<!-- END GENERATED: package table -->"
)

// binaryCommand is the package whose dependencies make the first table.
const binaryCommand = "cmd/rangecopy"

// Package is one package of the module as the table shows it.
type Package struct {
	// Path is the import path relative to the module ("worker",
	// "cmd/rangecopy"); "" is the module's root package.
	Path string
	// Doc is the synopsis of its doc comment (go list's .Doc).
	Doc string
	// InBinary says whether the rangecopy binary links it.
	InBinary bool
}

// ErrNoDoc reports packages without a doc comment.
var ErrNoDoc = errors.New("package without a doc comment")

func main() {
	file := flag.String("file", "docs/layout.md", "markdown file to update, relative to the module root unless absolute")
	check := flag.Bool("check", false, "change nothing; exit 1 if the file's table is out of date")
	flag.Parse()
	if err := run(context.Background(), *file, *check, os.Stdout); err != nil {
		slog.Error("layout", "err", err)
		os.Exit(1)
	}
}

// run updates (or, with check, compares) the package table of file.
func run(ctx context.Context, file string, check bool, out io.Writer) error {
	root, modPath, err := module(ctx)
	if err != nil {
		return err
	}
	if !filepath.IsAbs(file) {
		file = filepath.Join(root, file)
	}
	pkgs, err := listPackages(ctx, root, modPath)
	if err != nil {
		return err
	}
	old, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("read the layout page: %w", err)
	}
	updated, err := Update(old, pkgs, file, root)
	if err != nil {
		return err
	}
	if bytes.Equal(old, updated) {
		return nil
	}
	rel, _ := filepath.Rel(root, file)
	if check {
		return fmt.Errorf("%s: the package table is out of date with the packages' doc comments: run make docs", rel)
	}
	if err := os.WriteFile(file, updated, 0o644); err != nil {
		return fmt.Errorf("write the layout page: %w", err)
	}
	fmt.Fprintf(out, "layout: wrote the package table of %s\n", rel)
	return nil
}

// Update returns page with the table of pkgs between its markers; file is
// where page lives and root the module's folder, for the links.
func Update(page []byte, pkgs []Package, file, root string) ([]byte, error) {
	up, err := filepath.Rel(filepath.Dir(file), root)
	if err != nil {
		return nil, fmt.Errorf("link from %s to the module root: %w", file, err)
	}
	table, err := Render(pkgs, filepath.ToSlash(up))
	if err != nil {
		return nil, err
	}
	return Splice(page, table)
}

// Render writes the package tables in markdown: the packages the binary links,
// then the rest (tests, harness, benchmarks, tools), each by path. Links to
// the packages' folders are relative to up, the module root as seen from the
// page. It fails, naming them, if any package lacks a doc comment.
func Render(pkgs []Package, up string) (string, error) {
	var missing []string
	for _, p := range pkgs {
		if strings.TrimSpace(p.Doc) == "" {
			missing = append(missing, displayPath(p.Path))
		}
	}
	if len(missing) > 0 {
		return "", fmt.Errorf("%w: %s (write one, in doc.go or beside the package clause: \"// Package name ...\" or \"// Command name ...\", for docs/layout.md)",
			ErrNoDoc, strings.Join(missing, ", "))
	}
	sorted := slices.Clone(pkgs)
	slices.SortFunc(sorted, func(a, b Package) int { return strings.Compare(a.Path, b.Path) })
	var b strings.Builder
	section := func(title, intro string, in bool) {
		fmt.Fprintf(&b, "### %s\n\n%s\n\n| package | what it is for |\n|---|---|\n", title, intro)
		for _, p := range sorted {
			if p.InBinary != in {
				continue
			}
			link := p.Path
			if up != "" && up != "." {
				link = up + "/" + p.Path
			}
			fmt.Fprintf(&b, "| [`%s`](%s) | %s |\n", displayPath(p.Path), link, escapeCell(p.Doc))
		}
	}
	section("In the binary", "The packages `"+binaryCommand+"` links (`go list -deps ./"+binaryCommand+"`):", true)
	b.WriteString("\n")
	section("Tests, harness, benchmarks and tools", "Everything else in the module:", false)
	return b.String(), nil
}

// Splice puts table between page's markers, replacing what was there.
func Splice(page []byte, table string) ([]byte, error) {
	s := string(page)
	i := strings.Index(s, BeginMarker+"\n")
	j := strings.Index(s, "\n"+EndMarker)
	if i < 0 || j < 0 || j < i {
		return nil, fmt.Errorf("the page lacks the marker lines %q and %q, in that order, each on a line of its own", BeginMarker, EndMarker)
	}
	begin := i + len(BeginMarker) + 1
	return []byte(s[:begin] + table + s[j+1:]), nil
}

// displayPath is how the table names a package: its folder, with a slash.
func displayPath(path string) string {
	if path == "" {
		return "./"
	}
	return path + "/"
}

// escapeCell makes a doc synopsis safe in a table cell: a pipe would end the
// cell, and outside code spans a <word> would be taken for an HTML tag.
func escapeCell(doc string) string {
	parts := strings.Split(strings.ReplaceAll(doc, "|", `\|`), "`")
	for i := 0; i < len(parts); i += 2 {
		parts[i] = strings.ReplaceAll(parts[i], "<", "&lt;")
	}
	return strings.Join(parts, "`")
}

// module returns the module's root folder and path.
func module(ctx context.Context) (root, path string, err error) {
	out, err := goCmd(ctx, "", "list", "-m", "-json")
	if err != nil {
		return "", "", err
	}
	var m struct{ Path, Dir string }
	if err := json.Unmarshal(out, &m); err != nil {
		return "", "", fmt.Errorf("go list -m: %w", err)
	}
	if m.Dir == "" {
		return "", "", errors.New("go list -m: no module folder (run inside the module)")
	}
	return m.Dir, m.Path, nil
}

// listPackages lists every package of the module with its doc synopsis and
// whether the binary links it.
func listPackages(ctx context.Context, root, modPath string) ([]Package, error) {
	deps, err := goCmd(ctx, root, "list", "-deps", "-f", "{{.ImportPath}}", "./"+binaryCommand)
	if err != nil {
		return nil, err
	}
	inBinary := map[string]bool{}
	for _, p := range strings.Fields(string(deps)) {
		inBinary[p] = true
	}
	out, err := goCmd(ctx, root, "list", "-json=ImportPath,Doc", "./...")
	if err != nil {
		return nil, err
	}
	var pkgs []Package
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct{ ImportPath, Doc string }
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list ./...: %w", err)
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, modPath), "/")
		pkgs = append(pkgs, Package{Path: rel, Doc: p.Doc, InBinary: inBinary[p.ImportPath]})
	}
	if len(pkgs) == 0 {
		return nil, errors.New("go list ./... found no packages")
	}
	return pkgs, nil
}

// goCmd runs the go command in dir and returns its standard output.
func goCmd(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
