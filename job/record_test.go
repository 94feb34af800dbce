package job

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"rangecopy/cluster"
)

func TestRecordRoundTrip(t *testing.T) {
	src := cluster.Config{Name: "source", ZKQuorum: []string{"a:2181", "b:2181"}, ZNodeParent: "/hbase",
		NameNodes: []string{"nn1:8020", "nn2:8020"}, RootDir: "/hbase"}
	tgt := cluster.Config{Name: "target", ZKQuorum: []string{"t:2181"}, ZNodeParent: "/hbase-t", NameNodes: []string{"tn:8020"}, RootDir: "/h",
		ZstdCodec: "org.apache.hadoop.hbase.io.compress.zstd.ZstdCodec"}
	r := Record{Kind: KindCopy, Spec: Spec{Table: "t", TargetTable: "u", Rows: KeyRange{Start: []byte{0, 0xff}, End: []byte("z")},
		Time: TimeRange{Min: 1, Max: 2}, Families: []string{"f"}}, Snapshot: "rangecopy-x", Source: src, Target: tgt,
		Options: RunOptions{Settings: Settings{Bandwidth: 1 << 20, CreateTable: true, KeepSnapshot: true, TaskBytes: 8 << 20, Retries: 5, Pin: PinLive}, WorkRoot: "/w", User: "hbase", Detached: true,
			Relocation: "rel_0123456789abcdef"}}
	b, err := EncodeRecord(r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeRecord(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, r) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, r)
	}
	if err := got.Servable(); err != nil {
		t.Errorf("Servable: %v", err)
	}
	// A record of the first format (no clusters) still reads, but only the
	// process that holds the clusters can serve it.
	v1, err := DecodeRecord([]byte(`{"v":1,"table":"t","snapshot":"s","source":"source cluster (zookeeper a:2181/hbase)"}`))
	if err == nil {
		err = v1.Servable()
	}
	if err == nil || !strings.Contains(err.Error(), "names no source cluster") {
		t.Errorf("first-format record: %v", err)
	}
	for _, bad := range []string{"", "{}", `{"v":3,"table":"t","snapshot":"s"}`, `{"v":2,"snapshot":"s"}`, "PBUF",
		`{"v":2,"table":"t","snapshot":"s","retries":-1}`, `{"v":2,"table":"t","snapshot":"s","bandwidth":-5}`} {
		if _, err := DecodeRecord([]byte(bad)); !errors.Is(err, ErrRecord) {
			t.Errorf("DecodeRecord(%q) err = %v, want ErrRecord", bad, err)
		}
	}
	if _, err := EncodeRecord(Record{Spec: Spec{Table: "t"}, Snapshot: "s", Options: RunOptions{Settings: Settings{Retries: MaxRetries + 1}}}); err == nil {
		t.Error("EncodeRecord took too many retries")
	}
	noHDFS := r
	noHDFS.Target.NameNodes = nil
	if err := noHDFS.Servable(); err == nil || !strings.Contains(err.Error(), "HDFS is not known") {
		t.Errorf("record without target HDFS: %v", err)
	}
}

// TestRecordKinds: a copy's record is written without a kind and every
// record without one (all written before kinds existed, such as the upgrade
// fixtures of master/testdata) reads as a copy; a verification's round trips
// with what it compares; unknown kinds and half verifications are refused.
func TestRecordKinds(t *testing.T) {
	copyRec := Record{Kind: KindCopy, Spec: Spec{Table: "t"}, Snapshot: "s"}
	b, err := EncodeRecord(copyRec)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "kind") {
		t.Errorf("copy record %s names its kind", b)
	}
	for _, old := range []string{string(b), `{"v":1,"table":"t","snapshot":"s"}`,
		`{"v":2,"table":"v2copy_T","snapshot":"rangecopy-copy-x-1","bandwidth":2048,"createTable":true,"user":"root"}`} {
		r, err := DecodeRecord([]byte(old))
		if err != nil || r.Kind != KindCopy || !r.IsCopy() || r.Verify != nil {
			t.Errorf("DecodeRecord(%s) = kind %q verify %v, %v; want a copy", old, r.Kind, r.Verify, err)
		}
	}
	v := Record{Kind: KindVerify, Spec: Spec{Table: "t", TargetTable: "u", Rows: KeyRange{Start: []byte("a")}, Time: TimeRange{Min: 0, Max: 9}},
		Snapshot: "src-snap", Options: RunOptions{Settings: Settings{Bandwidth: 100}, User: "hbase"},
		Verify: &Verification{TargetSnapshot: "dst-snap", Mode: "raw", NowMs: 1234, BatchBytes: 4096,
			MaxDiffs: 7, Only: []KeyRange{{Start: []byte("b"), End: []byte("c")}}, KeepSnapshots: true}}
	b, err = EncodeRecord(v)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeRecord(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, v) || got.IsCopy() {
		t.Errorf("verification round trip:\n got %+v %+v\nwant %+v %+v", got, got.Verify, v, v.Verify)
	}
	for _, bad := range []struct {
		name string
		rec  Record
	}{
		{"unknown kind", Record{Kind: "move", Spec: Spec{Table: "t"}, Snapshot: "s"}},
		{"verification without target snapshot", Record{Kind: KindVerify, Spec: Spec{Table: "t"}, Snapshot: "s", Verify: &Verification{Mode: "raw"}}},
		{"verification without details", Record{Kind: KindVerify, Spec: Spec{Table: "t"}, Snapshot: "s"}},
		{"verification of a bad mode", Record{Kind: KindVerify, Spec: Spec{Table: "t"}, Snapshot: "s", Verify: &Verification{TargetSnapshot: "d", Mode: "fast"}}},
		{"copy with a verification", Record{Kind: KindCopy, Spec: Spec{Table: "t"}, Snapshot: "s", Verify: &Verification{TargetSnapshot: "d", Mode: "raw"}}},
	} {
		if _, err := EncodeRecord(bad.rec); err == nil {
			t.Errorf("%s: encoded", bad.name)
		}
	}
	for _, bad := range []string{`{"v":2,"kind":"move","table":"t","snapshot":"s"}`, `{"v":2,"kind":"verify","table":"t","snapshot":"s"}`,
		`{"v":2,"kind":"verify","table":"t","snapshot":"s","verify":{"mode":"raw"}}`,
		`{"v":2,"table":"t","snapshot":"s","verify":{"targetSnapshot":"d","mode":"raw"}}`} {
		if _, err := DecodeRecord([]byte(bad)); !errors.Is(err, ErrRecord) {
			t.Errorf("DecodeRecord(%s) err = %v, want ErrRecord", bad, err)
		}
	}
}

func FuzzDecodeRecord(f *testing.F) {
	b, _ := EncodeRecord(Record{Spec: Spec{Table: "t"}, Snapshot: "s"})
	f.Add(b)
	f.Add([]byte(`{"v":2,"kind":"verify","table":"t","snapshot":"s","verify":{"targetSnapshot":"d","mode":"visible","nowMs":5,"only":[{"start":"AA=="}]}}`))
	f.Add([]byte(`{"v":1,"table":"t","snapshot":"s","start":"AA=="}`))
	f.Add([]byte(`{"v":2,"table":"t","snapshot":"s","source":{"name":"s","zk":["a:1"],"znode":"/h"},"retries":3}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeRecord(b)
		if err != nil {
			if !errors.Is(err, ErrRecord) {
				t.Fatalf("error not ErrRecord: %v", err)
			}
			return
		}
		again, err := EncodeRecord(r)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := DecodeRecord(again); err != nil {
			t.Fatalf("re-encoded record does not decode: %v", err)
		}
	})
}
