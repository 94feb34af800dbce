package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"rangecopy/hfile"
	"rangecopy/testenv"
)

func writeHFile(t *testing.T, n int) string {
	t.Helper()
	var buf bytes.Buffer
	w := hfile.NewWriter(&buf, hfile.WriterOptions{BlockSize: 512, Encoding: hfile.EncodingFastDiff, Compression: hfile.CompressionGZ})
	for i := 0; i < n; i++ {
		c := &hfile.Cell{Row: []byte(fmt.Sprintf("row\x00%05d", i)), Family: []byte("f"), Qualifier: []byte("q"),
			Timestamp: int64(1000 + i), Type: hfile.TypePut, Value: []byte(strings.Repeat("v", 40))}
		if err := w.Append(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "test.hfile")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestHFileInspect(t *testing.T) {
	p := writeHFile(t, 500)
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"hfile", "inspect", "-cells", p}, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s\n%s", code, stderr.String(), stdout.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"trailer    version 3.", "compression GZ", "encoding   FAST_DIFF",
		`first row\x0000000/f:q/1000/Put`, `last  row\x0000499/f:q/1499/Put`,
		"timerange  [1000, 1499]", "DATA_BLOCK_ENCODING", "blocks     ENCODED_DATA",
		`K: row\x0000007/f:q/1007/Put/vlen=40/seqid=0`, "cells      500 read (Put 500)", "check      ok",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestHFileInspectFindsDamage(t *testing.T) {
	p := writeHFile(t, 500)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[700] ^= 0x01
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"hfile", "inspect", p}, &stdout, &stderr); code != exitError {
		t.Fatalf("exit %d on a damaged file, want %d:\n%s", code, exitError, stdout.String())
	}
	if !strings.Contains(stdout.String(), "PROBLEM    blocks:") || !strings.Contains(stdout.String(), "checksum") ||
		!strings.Contains(stderr.String(), "file failed its checks") {
		t.Fatalf("damage not reported:\n%s\n%s", stdout.String(), stderr.String())
	}
}

func TestHFileInspectBadInput(t *testing.T) {
	dir := t.TempDir()
	notHFile := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notHFile, []byte("hello, this is not an HFile at all, but it is long enough to hold a trailer........"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"hfile"}, exitUsage, "missing hfile subcommand: want inspect"},
		{[]string{"hfile", "--help"}, exitOK, "inspect     print an HFile's trailer"},
		{[]string{"hfile", "inspect", "--help"}, exitOK, "--cells"},
		{[]string{"help", "hfile", "inspect"}, exitOK, "--user string"},
		{[]string{"hfile", "dump"}, exitUsage, `unknown hfile subcommand "dump": want inspect`},
		{[]string{"hfile", "inspect"}, exitUsage, "want exactly one file"},
		{[]string{"hfile", "inspect", filepath.Join(dir, "missing")}, exitError, "no such file"},
		{[]string{"hfile", "inspect", dir}, exitError, "is a directory"},
		{[]string{"hfile", "inspect", notHFile}, exitError, "notes.txt"},
		{[]string{"hfile", "inspect", "hdfs:///x"}, exitError, "names no NameNode"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), tt.args, &stdout, &stderr)
		out := stderr.String() // errors go to stderr, help to stdout
		if tt.code == exitOK {
			out = stdout.String()
		}
		if code != tt.code || !strings.Contains(out, tt.want) {
			t.Errorf("%v: exit %d, output %q; want %d and %q", tt.args, code, out, tt.code, tt.want)
		}
	}
}

// TestHFileInspectHBaseFileOnHDFS inspects a store file that HBase itself
// flushed, through an hdfs:// URI.
func TestHFileInspectHBaseFileOnHDFS(t *testing.T) {
	env := testenv.Get(t)
	ctx := context.Background()
	c := env.Source
	table := testenv.UniqueName(t, "inspect")
	if err := c.CreateTable(ctx, table, []testenv.Family{{Name: "f", Encoding: "FAST_DIFF", Compression: "GZ", Bloom: "ROWCOL"}}, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.DeleteTable(context.Background(), table) })
	var cells []testenv.Cell
	for i := 0; i < 300; i++ {
		cells = append(cells, testenv.Cell{Row: []byte(fmt.Sprintf("r%04d", i)), Family: []byte("f"), Qualifier: []byte("q"), Timestamp: 5000, Type: "Put", Value: []byte("v")})
	}
	cells = append(cells, testenv.Cell{Row: []byte("r0001"), Family: []byte("f"), Type: "DeleteFamily", Timestamp: 6000})
	if err := c.Mutate(ctx, table, cells); err != nil {
		t.Fatal(err)
	}
	if err := c.Flush(ctx, table); err != nil {
		t.Fatal(err)
	}
	regions, err := c.Regions(ctx, table)
	if err != nil {
		t.Fatal(err)
	}
	client := hdfsClientFor(t, c)
	dir := path.Join(c.RootDirPath(), "data", "default", table, regions[0].EncodedName, "f")
	files, err := client.ReadDir(dir)
	if err != nil || len(files) != 1 {
		t.Fatalf("store files in %s: %v, %v", dir, files, err)
	}
	uri := c.FSDefaultFS + path.Join(dir, files[0].Name())
	var stdout, stderr bytes.Buffer
	if code := run(ctx, []string{"hfile", "inspect", "-user", c.User, uri}, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s\n%s", code, stderr.String(), stdout.String())
	}
	// The flush keeps the delete marker and drops the put it masks, as a
	// raw scan shows.
	raw, err := c.Scan(ctx, table, testenv.ScanSpec{Raw: true})
	if err != nil || len(raw) != 300 {
		t.Fatalf("raw scan after the flush: %d cells, %v; want 300", len(raw), err)
	}
	for _, want := range []string{"compression GZ", "encoding   FAST_DIFF", "bloom      ROWCOL", "blocks     ENCODED_DATA ", "blocks     BLOOM_CHUNK ",
		"cells      300 read (DeleteFamily 1, Put 299)", "check      ok"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
}
