package testenv_test

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"rangecopy/testenv"
)

func TestLoadWithoutEnvironment(t *testing.T) {
	dir := t.TempDir()
	if _, err := testenv.Load(dir); !errors.Is(err, testenv.ErrNotRunning) {
		t.Fatalf("Load(empty dir) = %v, want ErrNotRunning", err)
	}
	// A clusters.json left behind by a killed harness: nothing answers.
	stale := `{"control":"127.0.0.1:1","source":{"name":"source"},"target":{"name":"target"}}`
	if err := os.WriteFile(filepath.Join(dir, "clusters.json"), []byte(stale), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := testenv.Load(dir)
	if !errors.Is(err, testenv.ErrNotRunning) || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Fatalf("Load(stale clusters.json) = %v, want ErrNotRunning naming the control address", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "clusters.json"), []byte(`{"control":`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := testenv.Load(dir); err == nil || !strings.Contains(err.Error(), "parse") {
		t.Fatalf("Load(truncated clusters.json) = %v, want a parse error", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "clusters.json"), []byte(`{"control":"x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := testenv.Load(dir); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("Load(clusters.json without clusters) = %v, want an error saying what is missing", err)
	}
}

func TestDefaultDir(t *testing.T) {
	t.Setenv(testenv.EnvVar, "")
	dir, err := testenv.DefaultDir()
	if err != nil {
		t.Fatal(err)
	}
	root, err := testenv.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if dir != filepath.Join(root, ".testenv") {
		t.Fatalf("DefaultDir() = %s, want .testenv under %s", dir, root)
	}
	t.Setenv(testenv.EnvVar, "/somewhere/else")
	if dir, err = testenv.DefaultDir(); err != nil || dir != "/somewhere/else" {
		t.Fatalf("DefaultDir() with %s set = %s, %v", testenv.EnvVar, dir, err)
	}
}

func TestUniqueName(t *testing.T) {
	valid := regexp.MustCompile(`^[A-Za-z0-9_]+$`)
	a := testenv.UniqueName(t, "my-table/x")
	b := testenv.UniqueName(t, "my-table/x")
	if a == b {
		t.Fatalf("two UniqueName calls gave %s twice", a)
	}
	for _, n := range []string{a, b, testenv.UniqueName(t, strings.Repeat("long", 40))} {
		if !valid.MatchString(n) || len(n) > 70 {
			t.Errorf("UniqueName = %q: want at most 70 characters of [A-Za-z0-9_]", n)
		}
	}
	if !strings.HasPrefix(a, "my_table_x_TestUniqueName_") {
		t.Errorf("UniqueName = %q, want the prefix and the test name in it", a)
	}
}

func TestRootDirPath(t *testing.T) {
	for in, want := range map[string]string{
		"hdfs://localhost:8020/user/root/test-data/abc": "/user/root/test-data/abc",
		"hdfs://nn/hbase": "/hbase",
		"hdfs://nn":       "/",
	} {
		c := testenv.Cluster{HBaseRootDir: in}
		if got := c.RootDirPath(); got != want {
			t.Errorf("RootDirPath(%s) = %s, want %s", in, got, want)
		}
	}
}
