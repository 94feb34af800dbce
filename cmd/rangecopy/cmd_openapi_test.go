package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestOpenAPICommand: the hidden openapi command writes the committed document
// (go generate ./api runs it) and wants --out.
func TestOpenAPICommand(t *testing.T) {
	file := filepath.Join(t.TempDir(), "openapi.yaml")
	var out, errb bytes.Buffer
	if code := run(t.Context(), []string{"openapi", "--out", file}, &out, &errb); code != exitOK {
		t.Fatalf("openapi: exit %d: %s", code, errb.String())
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("..", "..", "api", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("api/openapi.yaml is not what the openapi command writes: run go generate ./api")
	}
	errb.Reset()
	if code := run(t.Context(), []string{"openapi"}, &out, &errb); code != exitUsage || !bytes.Contains(errb.Bytes(), []byte("--out is required")) {
		t.Errorf("openapi without --out: exit %d, %q", code, errb.String())
	}
}
