package apiclient_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestOnlyTheContract: the client imports the API's wire types (package api) and the
// standard library, nothing of the server: a program that calls the API links none of the
// catalog's, ZooKeeper's, HDFS's or HBase's code.
func TestOnlyTheContract(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			first, _, _ := strings.Cut(path, "/")
			if path != "rangecopy/api" && (strings.Contains(first, ".") || first == "rangecopy") {
				t.Errorf("%s imports %s: apiclient imports only rangecopy/api and the standard library", name, path)
			}
		}
	}
}
