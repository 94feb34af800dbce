package bulkload

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"rangecopy/hbase"
	"rangecopy/hfile"
)

func TestClassifyLoadError(t *testing.T) {
	region := &hbase.Region{Name: []byte("t,,1.abc.")}
	loadedFalse := &hbase.BulkLoadError{Region: region, Reason: "region server answered loaded=false"}
	callFailed := func(err error) error {
		return &hbase.BulkLoadError{Region: region, Reason: "call failed", Err: err}
	}
	remote := func(k hbase.ExceptionKind) error { return &hbase.RemoteError{Kind: k, Class: "x"} }
	tests := []struct {
		name string
		err  error
		want Action
	}{
		{"nil", nil, ActionGiveUp},
		{"cancelled", fmt.Errorf("load: %w", context.Canceled), ActionGiveUp},
		{"deadline", callFailed(context.DeadlineExceeded), ActionGiveUp},
		{"client closed", callFailed(hbase.ErrClosed), ActionGiveUp},
		{"not sent: the claim check's send-by time passed", callFailed(fmt.Errorf("call BulkLoadHFile: %w", hbase.ErrSendTooLate)), ActionRetry},
		{"region split", callFailed(fmt.Errorf("region x is now y: %w", hbase.ErrRegionChanged)), ActionRelocate},
		{"region split after retries", callFailed(fmt.Errorf("giving up after 3 attempts: %w", hbase.ErrRegionChanged)), ActionRelocate},
		{"stale view", &errStaleRegion{msg: "hole"}, ActionRelocate},
		{"not serving", callFailed(remote(hbase.KindNotServingRegion)), ActionRelocate},
		{"moved", callFailed(remote(hbase.KindRegionMoved)), ActionRelocate},
		{"server stopped", callFailed(remote(hbase.KindRegionServerStopped)), ActionRelocate},
		{"connection broken", callFailed(&hbase.ConnError{Err: io.EOF}), ActionRelocate},
		{"region opening", callFailed(remote(hbase.KindRegionOpening)), ActionRetry},
		{"too busy", callFailed(remote(hbase.KindRegionTooBusy)), ActionRetry},
		{"server starting", remote(hbase.KindServerNotRunningYet), ActionRetry},
		{"loaded=false", loadedFalse, ActionDiagnose},
		{"loaded=false wrapped", fmt.Errorf("x: %w", loadedFalse), ActionDiagnose},
		{"unknown family", callFailed(remote(hbase.KindNoSuchColumnFamily)), ActionGiveUp},
		{"unknown table", callFailed(remote(hbase.KindTableNotFound)), ActionGiveUp},
		{"table disabled", callFailed(remote(hbase.KindTableNotEnabled)), ActionGiveUp},
		{"table gone from meta", &hbase.NotFoundError{Kind: hbase.KindTableNotFound, What: "table", Name: "t"}, ActionGiveUp},
		{"family error of ours", &LoadError{Err: &hbase.NotFoundError{Kind: hbase.KindNoSuchColumnFamily, What: "column family", Name: "t:x"}}, ActionGiveUp},
		{"file gone", &LoadError{Err: fmt.Errorf("%w: %w", ErrFileGone, fmt.Errorf("%w: %w", errBadFile, os.ErrNotExist))}, ActionGiveUp},
		{"bad file", &LoadError{Err: fmt.Errorf("%w: %w", errBadFile, hfile.ErrFormat)}, ActionGiveUp},
		{"do not retry", callFailed(&hbase.RemoteError{Kind: hbase.KindOther, Class: "x", DoNotRetry: true}), ActionGiveUp},
		{"other remote error", callFailed(remote(hbase.KindOther)), ActionRetry},
		{"plain error", errors.New("boom"), ActionGiveUp},
	}
	for _, tt := range tests {
		if got := ClassifyLoadError(tt.err); got != tt.want {
			t.Errorf("%s: ClassifyLoadError(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
	for a, want := range map[Action]string{ActionGiveUp: "give up", ActionRetry: "retry", ActionRelocate: "relocate", ActionDiagnose: "diagnose", 9: "Action(9)"} {
		if a.String() != want {
			t.Errorf("Action(%d).String() = %q", int(a), a.String())
		}
	}
}

func testRegions(server bool, keys ...string) []*hbase.Region {
	bounds := append(append([]string{""}, keys...), "")
	var out []*hbase.Region
	for i := 0; i+1 < len(bounds); i++ {
		r := &hbase.Region{Table: "t", StartKey: []byte(bounds[i]), EndKey: []byte(bounds[i+1]), Name: []byte(fmt.Sprintf("t,%s,1.r%d.", bounds[i], i))}
		if server {
			r.Server = hbase.ServerName{Host: "h", Port: 1, StartCode: 1}
		}
		out = append(out, r)
	}
	return out
}

func TestRegionsFor(t *testing.T) {
	regions := testRegions(true, "b", "d", "f")
	names := func(rs []*hbase.Region) string {
		var s []string
		for _, r := range rs {
			s = append(s, string(r.StartKey))
		}
		return strings.Join(s, ",")
	}
	tests := []struct {
		first, last string
		want        string // start keys of the regions, "" for the first
	}{
		{"a", "a", ""},
		{"", "a\xff", ""},
		{"b", "c", "b"},
		{"b", "d", "b,d"},
		{"a", "z", ",b,d,f"},
		{"c", "e", "b,d"},
		{"f", "f\xff\xff", "f"},
		{"e", "e", "d"},
	}
	for _, tt := range tests {
		got, err := regionsFor(regions, []byte(tt.first), []byte(tt.last))
		if err != nil || names(got) != tt.want {
			t.Errorf("regionsFor(%q, %q) = %q, %v; want %q", tt.first, tt.last, names(got), err, tt.want)
		}
	}
	// A hole (a region missing from the view) and a region in transition
	// are stale views: ActionRelocate.
	holed := []*hbase.Region{regions[0], regions[2], regions[3]}
	if _, err := regionsFor(holed, []byte("a"), []byte("e")); ClassifyLoadError(err) != ActionRelocate {
		t.Errorf("hole: err = %v", err)
	}
	if _, err := regionsFor(holed[1:], []byte("a"), []byte("a")); ClassifyLoadError(err) != ActionRelocate {
		t.Errorf("no region: err = %v", err)
	}
	if _, err := regionsFor(testRegions(false, "b"), []byte("c"), []byte("c")); ClassifyLoadError(err) != ActionRelocate || !strings.Contains(err.Error(), "not open") {
		t.Errorf("in transition: err = %v", err)
	}
	if _, err := regionsFor(nil, []byte("c"), []byte("c")); ClassifyLoadError(err) != ActionRelocate {
		t.Errorf("no regions: err = %v", err)
	}
}

func TestSplitKeys(t *testing.T) {
	k := func(s ...string) [][]byte {
		var out [][]byte
		for _, x := range s {
			out = append(out, []byte(x))
		}
		return out
	}
	tests := []struct {
		name       string
		bounds     [][]byte
		start, end string
		want       [][]byte
	}{
		{"whole table", k("", "b", "d"), "", "", k("b", "d")},
		{"inside only", k("", "b", "d", "f", "h"), "c", "g", k("d", "f")},
		{"boundary at start excluded", k("b", "d", "f"), "b", "f", k("d")},
		{"boundary at end excluded", k("b", "d", "f"), "a", "d", k("b")},
		{"unsorted and duplicated", k("f", "b", "d", "b"), "", "", k("b", "d", "f")},
		{"none inside", k("", "m"), "a", "c", nil},
		{"binary keys", k("\x00", "\x00\x01", "\xff"), "\x00", "", k("\x00\x01", "\xff")},
	}
	for _, tt := range tests {
		got := SplitKeys(tt.bounds, []byte(tt.start), []byte(tt.end))
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: SplitKeys = %q, want %q", tt.name, got, tt.want)
		}
	}
	// The result does not alias the input.
	in := k("", "b")
	out := SplitKeys(in, nil, nil)
	out[0][0] = 'x'
	if string(in[1]) != "b" {
		t.Error("SplitKeys aliases its input")
	}
}

func TestMissingFamiliesAndTargetDescriptor(t *testing.T) {
	src := hbase.TableDescriptor{Name: "ns:src", Attributes: map[string]string{"DURABILITY": "ASYNC_WAL", "coprocessor$1": "|x.Y|1|"},
		Families: []hbase.FamilyDescriptor{
			{Name: "a", MaxVersions: 3, TTL: 60, Compression: "GZ", Attributes: map[string]string{"VERSIONS": "3"}},
			{Name: "b", InMemory: true},
			{Name: "c"},
		}}
	have := &hbase.TableDescriptor{Families: []hbase.FamilyDescriptor{{Name: "b"}}}
	if got := MissingFamilies(&src, have); !reflect.DeepEqual(got, []string{"a", "c"}) {
		t.Errorf("MissingFamilies = %v", got)
	}
	err := &MissingFamiliesError{Table: "t", Families: []string{"a", "c"}}
	if !errors.Is(err, hbase.ErrNoSuchColumnFamily) || !strings.Contains(err.Error(), "a, c") {
		t.Errorf("MissingFamiliesError = %v", err)
	}
	var noTable error = &NoTargetTableError{Table: "ns:t", Cluster: "target cluster (zookeeper z1:2181/hbase)"}
	if want := "target table ns:t does not exist on the target cluster (zookeeper z1:2181/hbase); use --create-table to create it"; noTable.Error() != want {
		t.Errorf("NoTargetTableError = %q, want %q", noTable, want)
	}
	if wrapped := fmt.Errorf("check: %w", noTable); !errors.Is(wrapped, ErrNoTargetTable) || !errors.Is(wrapped, hbase.ErrTableNotFound) {
		t.Errorf("NoTargetTableError matches neither ErrNoTargetTable nor hbase.ErrTableNotFound")
	}
	if got := (&NoTargetTableError{Table: "t"}).Error(); got != "target table t does not exist; use --create-table to create it" {
		t.Errorf("NoTargetTableError without a cluster = %q", got)
	}
	d := TargetDescriptor(src, "dst")
	if d.Name != "dst" || len(d.Families) != 3 || d.Families[0].TTL != 60 || d.Families[0].Compression != "GZ" || !d.Families[1].InMemory {
		t.Errorf("TargetDescriptor = %+v", d)
	}
	if _, ok := d.Attributes["coprocessor$1"]; ok || d.Attributes["DURABILITY"] != "ASYNC_WAL" {
		t.Errorf("table attributes = %v", d.Attributes)
	}
	d.Families[0].Attributes["VERSIONS"] = "9"
	if src.Families[0].Attributes["VERSIONS"] != "3" {
		t.Error("TargetDescriptor aliases the source's attributes")
	}
}

// TestWriterOptionsOf writes files with several settings and checks that the
// settings read back from each file reproduce them.
func TestWriterOptionsOf(t *testing.T) {
	for _, want := range []hfile.WriterOptions{
		{},
		{Compression: hfile.CompressionGZ, Encoding: hfile.EncodingFastDiff, IncludeTags: true, IncludeMVCC: true, Bloom: hfile.BloomRow},
		{Compression: hfile.CompressionSnappy, Encoding: hfile.EncodingPrefix, Bloom: hfile.BloomRowCol},
		{Compression: hfile.CompressionZSTD, Encoding: hfile.EncodingRowIndexV1},
	} {
		var buf bytes.Buffer
		w := hfile.NewWriter(&buf, want)
		for i := 0; i < 100; i++ {
			c := &hfile.Cell{Row: fmt.Appendf(nil, "r%03d", i), Family: []byte("f"), Qualifier: []byte("q"), Timestamp: 1, Type: hfile.TypePut, Value: []byte("v"), SeqID: uint64(i)}
			if err := w.Append(c); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		r, err := hfile.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "mem")
		if err != nil {
			t.Fatal(err)
		}
		if got := WriterOptionsOf(r); !reflect.DeepEqual(got, want) {
			t.Errorf("WriterOptionsOf = %+v, want %+v", got, want)
		}
	}
}

func TestLoadErrorNamesFileAndRegion(t *testing.T) {
	e := &LoadError{File: File{Family: "f", Path: "/w/t/f/abc", FirstRow: []byte("a"), LastRow: []byte("b")}, Region: "t,a,1.x.", Reason: "refused", Err: io.EOF}
	for _, want := range []string{"/w/t/f/abc", "family f", `"a".."b"`, "t,a,1.x.", "refused", "EOF"} {
		if !strings.Contains(e.Error(), want) {
			t.Errorf("%q lacks %q", e.Error(), want)
		}
	}
	if !errors.Is(e, io.EOF) {
		t.Error("LoadError does not unwrap")
	}
}

func TestFSPath(t *testing.T) {
	for in, want := range map[string]string{
		"/a/b":                        "/a/b",
		"hdfs://localhost:8020/a/b":   "/a/b",
		"hdfs://nameservice1/a/b%20c": "/a/b c",
		"relative/x":                  "relative/x",
	} {
		if got := fsPath(in); got != want {
			t.Errorf("fsPath(%q) = %q, want %q", in, got, want)
		}
	}
}
