package main

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// confDir writes a cluster configuration folder like the test environment's.
func confDir(t *testing.T, zk, rootDir string) string {
	t.Helper()
	dir := t.TempDir()
	site := `<?xml version="1.0"?><configuration>
<property><name>hbase.zookeeper.quorum</name><value>` + zk + `</value></property>
<property><name>hbase.zookeeper.property.clientPort</name><value>2181</value></property>
<property><name>hbase.rootdir</name><value>` + rootDir + `</value></property>
</configuration>`
	if err := os.WriteFile(filepath.Join(dir, "hbase-site.xml"), []byte(site), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestCopyOptions(t *testing.T) {
	src := confDir(t, "zk1,zk2", "hdfs://nn1:8020/hbase")
	t.Setenv("RANGECOPY_ZK", "")
	base := copyFlags{source: clusterFlags{side: "source", spec: src},
		target: clusterFlags{side: "target", spec: "tzk:2181:/hbase", rootDir: "hdfs://tnn:9000/hb"},
		rng:    rangeFlags{table: "ns:t"}, workers: 4, registry: registryFlags{zkRoot: "/rangecopy"}}

	o, err := copyOptions(base)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(o.Source.ZKQuorum, ","); got != "zk1:2181,zk2:2181" {
		t.Errorf("source quorum %s", got)
	}
	if o.Source.RootDir != "/hbase" || o.Target.RootDir != "/hb" || o.Target.NameNodes[0] != "tnn:9000" {
		t.Errorf("HDFS: source %v %s, target %v %s", o.Source.NameNodes, o.Source.RootDir, o.Target.NameNodes, o.Target.RootDir)
	}
	if o.Spec.Table != "ns:t" || o.Workers != 4 || o.Spec.Rows.Start != nil || o.Spec.Rows.End != nil || o.Spec.Time.Min != 0 || o.Spec.Time.Max != 0 ||
		o.ZK != nil || o.ZKRoot != "/rangecopy" || o.User == "" {
		t.Errorf("defaults: %+v", o)
	}

	f := base
	f.rng.startRow, f.rng.stopRow = `\x00a`, `\xFF\xFF`
	f.rng.startTime, f.rng.endTime = "100", "200"
	f.rng.families = "cf1, cf2"
	f.bandwidth = "1.5GiB/s"
	f.rng.targetTable, f.registry.zk, f.resume = "ns:t2", "z1,z2:2182", ""
	f.user.name = "hbase"
	f.createTable, f.keepSnapshot, f.dryRun = true, true, true
	if o, err = copyOptions(f); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(o.Spec.Rows.Start, []byte{0, 'a'}) || !bytes.Equal(o.Spec.Rows.End, []byte{0xff, 0xff}) {
		t.Errorf("rows %s", o.Spec.Rows)
	}
	if o.Spec.Time.Min != 100 || o.Spec.Time.Max != 200 || strings.Join(o.Spec.Families, "|") != "cf1|cf2" {
		t.Errorf("time %v families %q", o.Spec.Time, o.Spec.Families)
	}
	if o.Bandwidth != 1.5*(1<<30) || o.Spec.TargetTable != "ns:t2" || strings.Join(o.ZK, ",") != "z1:2181,z2:2182" {
		t.Errorf("bandwidth %v target %s zk %v", o.Bandwidth, o.Spec.TargetTable, o.ZK)
	}
	if !o.CreateTable || !o.KeepSnapshot || !o.DryRun || o.User != "hbase" {
		t.Errorf("switches %+v", o)
	}

	// --zk defaults to $RANGECOPY_ZK, then (in the master) to the target's quorum.
	t.Setenv("RANGECOPY_ZK", "e1,e2:2190")
	if o, err = copyOptions(base); err != nil || strings.Join(o.ZK, ",") != "e1:2181,e2:2190" {
		t.Errorf("--zk from $RANGECOPY_ZK: %v, %v", o.ZK, err)
	}
	t.Setenv("RANGECOPY_ZK", "")

	f = base
	f.rng.startTime = "1000"
	if o, err = copyOptions(f); err != nil || o.Spec.Time.Min != 1000 || o.Spec.Time.Max != math.MaxInt64 {
		t.Errorf("start time only: %v %v", o.Spec.Time, err)
	}

	bad := map[string]func(*copyFlags){
		"no source":        func(f *copyFlags) { f.source.spec = "" },
		"bad zk root":      func(f *copyFlags) { f.registry.zkRoot = "rangecopy/" },
		"bad source hdfs":  func(f *copyFlags) { f.source.rootDir = "ftp://x/y" },
		"no table":         func(f *copyFlags) { f.rng.table = "" },
		"reversed rows":    func(f *copyFlags) { f.rng.startRow, f.rng.stopRow = "b", "a" },
		"empty rows":       func(f *copyFlags) { f.rng.startRow, f.rng.stopRow = "a", "a" },
		"bad escape":       func(f *copyFlags) { f.rng.startRow = `\q` },
		"reversed time":    func(f *copyFlags) { f.rng.startTime, f.rng.endTime = "5", "3" },
		"bad time":         func(f *copyFlags) { f.rng.endTime = "soon" },
		"bad family":       func(f *copyFlags) { f.rng.families = "a:b" },
		"zero workers":     func(f *copyFlags) { f.workers = 0 },
		"bad bandwidth":    func(f *copyFlags) { f.bandwidth = "lots" },
		"key without hdfs": func(f *copyFlags) { f.target.rootDir = "" },
		"bad table":        func(f *copyFlags) { f.rng.table = "hbase:meta" },
	}
	for name, mod := range bad {
		f := base
		mod(&f)
		if _, err := copyOptions(f); !errors.Is(err, errUsage) {
			t.Errorf("%s: err = %v, want a usage error", name, err)
		}
	}
	f = base
	f.rng.table, f.resume = "", "copy-t-0123"
	if _, err := copyOptions(f); err != nil {
		t.Errorf("--resume without --table: %v", err)
	}
}

func TestCopyCommandUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(t.Context(), []string{"copy", "--table", "t"}, &out, &errb); code != exitUsage {
		t.Errorf("exit %d, want %d; stderr %s", code, exitUsage, errb.String())
	}
	if !strings.Contains(errb.String(), "--source and --target are required") {
		t.Errorf("stderr %q", errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := run(t.Context(), []string{"help"}, &out, &errb); code != exitOK || !strings.Contains(out.String(), "copy ") {
		t.Errorf("help lists no copy command: %q", out.String())
	}
}

func TestIsTerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if isTerminal(w) {
		t.Error("a pipe is taken for a terminal")
	}
	if isTerminal(&bytes.Buffer{}) {
		t.Error("a buffer is taken for a terminal")
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Error("a regular file is taken for a terminal")
	}
}

// TestCopyCPUProfileBadPath: a --cpuprofile that cannot be created is a usage
// error naming the flag, found before any cluster is contacted.
func TestCopyCPUProfileBadPath(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run(t.Context(), []string{"copy",
		"--source", "127.0.0.1:1:/hbase", "--source-hdfs", "hdfs://127.0.0.1:1/hbase",
		"--target", "127.0.0.1:2:/hbase", "--target-hdfs", "hdfs://127.0.0.1:2/hbase",
		"--table", "t", "--cpuprofile", filepath.Join(t.TempDir(), "no", "such", "dir", "cpu.pprof"),
	}, &out, &errOut)
	if code != exitUsage || !strings.Contains(errOut.String(), "rangecopy copy: --cpuprofile: open ") {
		t.Fatalf("exit %d, stderr %q; want %d and a usage error naming --cpuprofile", code, errOut.String(), exitUsage)
	}
}
