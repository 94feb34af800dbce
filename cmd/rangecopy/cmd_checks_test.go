package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"rangecopy/hbase"
	"rangecopy/testenv"
	"rangecopy/testenv/copytest"
)

// TestCopyRefusesItself runs rangecopy copy of a table onto itself on the real source
// cluster, named once by its folder and once by other spellings of its addresses (only
// HBase's cluster id tells they are one): each run fails naming the reason, and the source's
// raw cells are unchanged.
func TestCopyRefusesItself(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	src, _ := commandSource(t, env, "cpself")
	raw := func() int {
		cells, err := env.Source.Scan(ctx, src, testenv.ScanSpec{Raw: true})
		if err != nil {
			t.Fatal(err)
		}
		return len(cells)
	}
	before := raw()
	key := strings.Replace(env.Source.ClusterKey, "127.0.0.1", "localhost", 1)
	root := strings.Replace(env.Source.HBaseRootDir, "localhost", "127.0.0.1", 1)
	if key == env.Source.ClusterKey || root == env.Source.HBaseRootDir {
		t.Fatalf("cannot spell %s and %s otherwise", env.Source.ClusterKey, env.Source.HBaseRootDir)
	}
	for _, c := range []struct {
		what   string
		target []string
		want   string
	}{
		{"the same folder", []string{"--target", env.Source.ConfDir}, "never writes into its source"},
		{"other addresses", []string{"--target", key, "--target-hdfs", root, "--create-table"}, "the same HBase cluster id"},
	} {
		args := append([]string{"copy", "--source", env.Source.ConfDir, "--table", src, "--user", env.Source.User}, c.target...)
		args = append(args, testRegistryFlags(t)...)
		var out, errb bytes.Buffer
		code := run(ctx, args, &out, &errb)
		if code == exitOK || !strings.Contains(errb.String(), c.want) {
			t.Errorf("copy onto itself, %s: exit %d, stderr %q; want a failure naming %q", c.what, code, errb.String(), c.want)
		}
		t.Logf("%s: exit %d: %s", c.what, code, strings.TrimSpace(errb.String()))
	}
	if after := raw(); after != before {
		t.Errorf("the source's raw cells: %d before, %d after", before, after)
	}
}

// TestCopyMemoryTooSmall runs rangecopy copy --memory 32MiB --workers 4 of a table whose
// family writes 8 MiB blocks, so that one task's output buffers alone pass the budget: it
// fails naming the memory a task needs, and no target table is created.
func TestCopyMemoryTooSmall(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	table := env.Source.NewTable(t, "cpmem", []testenv.Family{{Name: "big", BlockSize: 8 << 20}}, nil)
	args := append([]string{"copy", "--source", env.Source.ConfDir, "--target", env.Target.ConfDir, "--table", table,
		"--user", env.Target.User, "--create-table", "--memory", "32MiB", "--workers", "4"}, testRegistryFlags(t)...)
	copytest.DropTargetLater(t, env, table)
	var out, errb bytes.Buffer
	code := run(ctx, args, &out, &errb)
	if code == exitOK || !strings.Contains(errb.String(), "memory budget too small") || !strings.Contains(errb.String(), "nothing was made") {
		t.Errorf("copy --memory 32MiB: exit %d, stderr %q; want a failure naming the memory a task needs", code, errb.String())
	}
	t.Logf("exit %d: %s", code, strings.TrimSpace(errb.String()))
	if _, err := copytest.DialCluster(t, env.Target).TableDescriptor(ctx, table); !errors.Is(err, hbase.ErrTableNotFound) {
		t.Errorf("the target table after a refused copy: %v; want none", err)
	}
}
