package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"rangecopy/verify"
)

func TestVerifyOptions(t *testing.T) {
	src := confDir(t, "zk1,zk2", "hdfs://nn1:8020/hbase")
	base := verifyFlags{source: clusterFlags{side: "source", spec: src},
		target: clusterFlags{side: "target", spec: "tzk:2181:/hbase", rootDir: "hdfs://tnn:9000/hb"},
		rng: rangeFlags{table: "ns:t"}, mode: "visible", maxDiffs: 20, parallelism: 4, registry: registryFlags{zkRoot: "/rangecopy"}}

	f := base
	f.rng.startRow, f.rng.stopRow, f.rng.endTime, f.rng.families = `\x00a`, `\xFF`, "500", "cf2,cf1"
	f.mode, f.bandwidth, f.batchSize = "raw", "10MB/s", "4MiB"
	o, err := verifyOptions(f)
	if err != nil {
		t.Fatal(err)
	}
	if o.Table != "ns:t" || string(o.Rows.Start) != "\x00a" || string(o.Rows.End) != "\xff" || o.Time.Min != 0 || o.Time.Max != 500 ||
		strings.Join(o.Families, ",") != "cf2,cf1" || o.Mode != verify.ModeRaw || o.Bandwidth != 10e6 || o.BatchBytes != 4<<20 ||
		o.Target.RootDir != "/hb" || o.MaxDiffs != 20 {
		t.Errorf("options %+v", o)
	}

	for name, mutate := range map[string]func(*verifyFlags){
		"no table":      func(f *verifyFlags) { f.rng.table = "" },
		"no source":     func(f *verifyFlags) { f.source.spec = "" },
		"bad mode":      func(f *verifyFlags) { f.mode = "cooked" },
		"reversed rows": func(f *verifyFlags) { f.rng.startRow, f.rng.stopRow = "b", "a" },
		"bad time":      func(f *verifyFlags) { f.rng.endTime = "soon" },
		"no diffs":      func(f *verifyFlags) { f.maxDiffs = 0 },
		"parallelism":   func(f *verifyFlags) { f.parallelism = 0 },
		"bandwidth":     func(f *verifyFlags) { f.bandwidth = "fast" },
		"batch size":    func(f *verifyFlags) { f.batchSize = "12" },
	} {
		f := base
		mutate(&f)
		if _, err := verifyOptions(f); !errors.Is(err, errUsage) {
			t.Errorf("%s: err %v, want a usage error", name, err)
		}
	}
}

func TestVerifyUsageExit(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(t.Context(), []string{"verify", "--table", "t"}, &out, &errb); code != exitUsage {
		t.Fatalf("exit %d, want %d; stderr %s", code, exitUsage, errb.String())
	}
	if !strings.Contains(errb.String(), "--source and --target are required") {
		t.Errorf("stderr %s", errb.String())
	}
}
