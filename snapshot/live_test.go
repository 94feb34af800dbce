package snapshot

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"rangecopy/hbase"
)

func TestSettleWait(t *testing.T) {
	var sum time.Duration
	want := []time.Duration{50, 100, 200, 400, 800, 1000, 1000}
	n := 0
	for attempt := 0; ; attempt++ {
		d, again := settleWait(attempt)
		if !again {
			break
		}
		if attempt < len(want) && d != want[attempt]*time.Millisecond {
			t.Errorf("wait %d = %v, want %v", attempt, d, want[attempt]*time.Millisecond)
		}
		sum += d
		n++
		if n > 100 {
			t.Fatal("settleWait never stops")
		}
	}
	if sum > settleTotal || sum < settleTotal-time.Second {
		t.Errorf("the waits add up to %v over %d tries; want just under %v", sum, n, settleTotal)
	}
}

func TestLiveFile(t *testing.T) {
	const hf, parent = "0a1b2c3d4e5f60718293a4b5c6d7e8f9", "9f8e7d6c5b4a39281706f5e4d3c2b1a0"
	for _, c := range []struct {
		path, ns, qual, region string
		want                   ManifestFile
		err                    string
	}{
		{path: "hdfs://nn:8020/hbase/data/default/t/r1/f/0a1b2c", ns: "default", qual: "t", region: "r1",
			want: ManifestFile{Region: "r1", Family: "f", Name: "0a1b2c"}},
		{path: "/hbase/data/ns/t/r1/g/" + hf + "." + parent, ns: "ns", qual: "t", region: "r1",
			want: ManifestFile{Region: "r1", Family: "g", Name: hf + "." + parent}},
		{path: "viewfs://cluster/apps/hbase/root/data/ns/t/r1/f/other=" + parent + "-" + hf, ns: "ns", qual: "t", region: "r1",
			want: ManifestFile{Region: "r1", Family: "f", Name: "other=" + parent + "-" + hf}},
		{path: "hdfs://nn/hbase/data/default/t/r2/f/0a1b2c", ns: "default", qual: "t", region: "r1", err: "not under data/default/t/r1"},
		{path: "hdfs://nn/hbase/data/other/t/r1/f/0a1b2c", ns: "default", qual: "t", region: "r1", err: "not under"},
		{path: "hdfs://nn/hbase/archive/default/t/r1/f/0a1b2c", ns: "default", qual: "t", region: "r1", err: "not under"},
		{path: "f/0a1b2c", ns: "default", qual: "t", region: "r1", err: "is not <root>/data"},
		{path: "/hbase/data/default/t/r1/f/..", ns: "default", qual: "t", region: "r1", err: "not a file name"},
	} {
		got, err := liveFile(c.path, c.ns, c.qual, c.region)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || !errors.Is(err, ErrCorrupt) {
				t.Errorf("liveFile(%q) = %+v, %v; want an error with %q", c.path, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("liveFile(%q) = %+v, %v; want %+v", c.path, got, err, c.want)
		}
	}
}

// fakeLive answers Flush from a script of results and counts the flushes;
// it does nothing else.
type fakeLive struct {
	Live
	results []hbase.FlushResult
	err     error
	flushes int
}

func (f *fakeLive) Flush(ctx context.Context, r *hbase.Region) (hbase.FlushResult, error) {
	f.flushes++
	if f.err != nil {
		return hbase.FlushResult{}, f.err
	}
	if len(f.results) == 0 {
		return hbase.FlushResult{}, nil
	}
	res := f.results[0]
	f.results = f.results[1:]
	return res, nil
}

func TestSettle(t *testing.T) {
	noWait := func(max int) func(int) (time.Duration, bool) {
		return func(attempt int) (time.Duration, bool) { return 0, attempt+1 < max }
	}
	r := &hbase.Region{EncodedName: "r1"}
	busy := hbase.FlushResult{}
	for _, c := range []struct {
		name    string
		results []hbase.FlushResult
		err     error
		flushes int
		want    error
	}{
		{name: "flushed at once", results: []hbase.FlushResult{{Flushed: true}}, flushes: 1},
		{name: "nothing to flush", results: []hbase.FlushResult{{Empty: true}}, flushes: 1},
		{name: "a flush under way, then nothing left", results: []hbase.FlushResult{busy, busy, {Empty: true}}, flushes: 3},
		{name: "a flush under way, then the rest flushed", results: []hbase.FlushResult{busy, {Flushed: true}}, flushes: 2},
		{name: "always busy", flushes: 4, want: ErrUnsettled},
		{name: "the server fails", err: hbase.ErrTableNotFound, flushes: 1, want: hbase.ErrTableNotFound},
	} {
		f := &fakeLive{results: c.results, err: c.err}
		err := settle(t.Context(), f, r, noWait(4))
		if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
			t.Errorf("%s: settle = %v, want %v", c.name, err, c.want)
		}
		if f.flushes != c.flushes {
			t.Errorf("%s: %d flushes, want %d", c.name, f.flushes, c.flushes)
		}
	}
}

// fakeTable is a table of regions for PinLive that must fail before it
// flushes or lists anything.
type fakeTable struct {
	fakeLive
	regions []*hbase.Region
}

func (f *fakeTable) TableDescriptor(ctx context.Context, table string) (*hbase.TableDescriptor, error) {
	return &hbase.TableDescriptor{Name: table, Families: []hbase.FamilyDescriptor{{Name: "f"}}}, nil
}

func (f *fakeTable) Regions(ctx context.Context, table string) ([]*hbase.Region, error) {
	return f.regions, nil
}

func TestPinLiveRefusesBeforeFlushing(t *testing.T) {
	up := hbase.ServerName{Host: "rs1", Port: 16020, StartCode: 1}
	for _, c := range []struct {
		name    string
		regions []*hbase.Region
		want    error
		text    string
	}{
		{name: "a region in transition", regions: []*hbase.Region{
			{EncodedName: "a", EndKey: []byte("m"), Server: up}, {EncodedName: "b", StartKey: []byte("m")}},
			want: ErrUnsettled, text: "region b is not open"},
		{name: "a gap between regions", regions: []*hbase.Region{
			{EncodedName: "a", EndKey: []byte("m"), Server: up}, {EncodedName: "b", StartKey: []byte("n"), Server: up}},
			want: ErrCorrupt, text: "region a ends at"},
	} {
		f := &fakeTable{regions: c.regions}
		_, err := PinLive(t.Context(), f, nil, "/hbase", "t", Options{})
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%s: PinLive = %v; want %v with %q", c.name, err, c.want, c.text)
		}
		if f.flushes != 0 {
			t.Errorf("%s: %d flushes before refusing", c.name, f.flushes)
		}
	}
}
