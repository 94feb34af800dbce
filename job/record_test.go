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
	r := Record{Spec: Spec{Table: "t", TargetTable: "u", Rows: KeyRange{Start: []byte{0, 0xff}, End: []byte("z")},
		Time: TimeRange{Min: 1, Max: 2}, Families: []string{"f"}}, Snapshot: "rangecopy-x", Source: src, Target: tgt,
		Options: RunOptions{Bandwidth: 1 << 20, CreateTable: true, KeepSnapshot: true, TaskBytes: 8 << 20,
			WorkRoot: "/w", User: "hbase", Retries: 5, Detached: true}}
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
	if _, err := EncodeRecord(Record{Spec: Spec{Table: "t"}, Snapshot: "s", Options: RunOptions{Retries: MaxRetries + 1}}); err == nil {
		t.Error("EncodeRecord took too many retries")
	}
	noHDFS := r
	noHDFS.Target.NameNodes = nil
	if err := noHDFS.Servable(); err == nil || !strings.Contains(err.Error(), "HDFS is not known") {
		t.Errorf("record without target HDFS: %v", err)
	}
}

func FuzzDecodeRecord(f *testing.F) {
	b, _ := EncodeRecord(Record{Spec: Spec{Table: "t"}, Snapshot: "s"})
	f.Add(b)
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
