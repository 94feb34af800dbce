package job

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

func sampleTaskSpec() TaskSpec {
	f1 := StoreFile{Region: "abc", Family: "f", Name: "0123abcd", Size: 4096,
		FirstRow: []byte{0x00, 'a'}, LastRow: []byte{0xff, 0xff}, HasTime: true, MinTime: 5, MaxTime: 99}
	f2 := StoreFile{Region: "abc", Family: "g", Name: "t=abc-0123.def", Size: 10}
	return TaskSpec{
		Task: Task{ID: "abc-000", Region: "abc", Rows: KeyRange{Start: []byte("a"), End: []byte{0xff, 0x00}},
			Files: []StoreFile{f1, f2}, Bytes: 4106},
		Inputs: []TaskInput{
			{File: f1, Path: "/hbase/data/default/t/abc/f/0123abcd"},
			{File: f2, Path: "/hbase/archive/data/default/t/def/g/0123", Reference: []byte("PBUF\x0a\x01a")},
		},
	}
}

func TestTaskSpecRoundTrip(t *testing.T) {
	for _, s := range []TaskSpec{
		sampleTaskSpec(),
		{Task: Task{ID: "whole-000", Region: "r"}},                                 // whole table, no inputs
		{Task: Task{ID: "start-000", Region: "r", Rows: KeyRange{End: []byte{0}}}}, // start of table
	} {
		b, err := EncodeTaskSpec(s)
		if err != nil {
			t.Fatalf("encode %s: %v", s.Task.ID, err)
		}
		got, err := DecodeTaskSpec(b)
		if err != nil {
			t.Fatalf("decode %s: %v", s.Task.ID, err)
		}
		if !reflect.DeepEqual(got, s) {
			t.Errorf("round trip of %s:\n got %+v\nwant %+v", s.Task.ID, got, s)
		}
	}
}

func TestTaskSpecDropsIndex(t *testing.T) {
	s := sampleTaskSpec()
	s.Inputs[0].File.Index = []IndexEntry{{Row: []byte("m"), Offset: 100}}
	b, err := EncodeTaskSpec(s)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeTaskSpec(b)
	if err != nil {
		t.Fatal(err)
	}
	if got.Inputs[0].File.Index != nil {
		t.Errorf("index entries kept: %v", got.Inputs[0].File.Index)
	}
}

func TestTaskSpecTooLarge(t *testing.T) {
	s := TaskSpec{Task: Task{ID: "big-000", Region: "r"}}
	for i := 0; i < 2000; i++ {
		s.Inputs = append(s.Inputs, TaskInput{File: StoreFile{Region: "r", Family: "f", Name: fmt.Sprintf("%064d", i)},
			Path: "/hbase/data/default/t/r/f/" + strings.Repeat("x", 64)})
	}
	_, err := EncodeTaskSpec(s)
	if !errors.Is(err, ErrTaskSpec) || !strings.Contains(err.Error(), "big-000") {
		t.Fatalf("err = %v, want ErrTaskSpec naming the task", err)
	}
}

func TestDecodeTaskSpecBad(t *testing.T) {
	good, err := EncodeTaskSpec(sampleTaskSpec())
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{
		"empty":        nil,
		"not json":     []byte("PBUF"),
		"version":      bytes.Replace(good, []byte(`"v":1`), []byte(`"v":2`), 1),
		"no id":        []byte(`{"v":1,"r":"x"}`),
		"empty range":  []byte(`{"v":1,"id":"x","s":"Yg==","e":"YQ=="}`),
		"no path":      []byte(`{"v":1,"id":"x","in":[{"r":"x","f":"f","n":"n"}]}`),
		"neg size":     []byte(`{"v":1,"id":"x","in":[{"r":"x","f":"f","n":"n","p":"/p","z":-1}]}`),
		"too large":    bytes.Repeat([]byte(" "), MaxTaskSpec+1),
		"wrong type":   []byte(`{"v":"1"}`),
		"trailing gar": append(append([]byte{}, good...), '}'),
	} {
		if _, err := DecodeTaskSpec(b); !errors.Is(err, ErrTaskSpec) {
			t.Errorf("%s: err = %v, want ErrTaskSpec", name, err)
		}
	}
}

func FuzzDecodeTaskSpec(f *testing.F) {
	good, err := EncodeTaskSpec(sampleTaskSpec())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"v":1,"id":"x"}`))
	f.Add([]byte(`{"v":1,"id":"x","in":[{"r":"x","f":"f","n":"n","p":"/p"}]}`))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := DecodeTaskSpec(b)
		if err != nil {
			if !errors.Is(err, ErrTaskSpec) {
				t.Fatalf("error not ErrTaskSpec: %v", err)
			}
			return
		}
		again, err := EncodeTaskSpec(s)
		if err != nil {
			t.Fatalf("re-encode a decoded spec: %v", err)
		}
		if want, err := json.Marshal(wireOf(s)); err != nil || !bytes.Equal(again, want) {
			t.Fatalf("encoding differs from json.Marshal of the wire form (%v):\n got %s\nwant %s", err, again, want)
		}
		s2, err := DecodeTaskSpec(again)
		if err != nil {
			t.Fatalf("decode a re-encoded spec: %v", err)
		}
		if !reflect.DeepEqual(normalize(s), normalize(s2)) {
			t.Fatalf("round trip differs:\n%+v\n%+v", s, s2)
		}
	})
}

// normalize maps empty byte slices to nil: the encoding does not tell them apart.
func normalize(s TaskSpec) TaskSpec {
	nz := func(b []byte) []byte {
		if len(b) == 0 {
			return nil
		}
		return b
	}
	s.Task.Rows.Start, s.Task.Rows.End = nz(s.Task.Rows.Start), nz(s.Task.Rows.End)
	for i := range s.Inputs {
		in := &s.Inputs[i]
		in.File.FirstRow, in.File.LastRow, in.Reference = nz(in.File.FirstRow), nz(in.File.LastRow), nz(in.Reference)
		s.Task.Files[i] = in.File
	}
	return s
}

// wireOf is the wire form of s: what json.Marshal of it must give
// EncodeTaskSpec's bytes.
func wireOf(s TaskSpec) wireSpec {
	w := wireSpec{V: taskSpecVersion, ID: s.Task.ID, Region: s.Task.Region,
		Start: s.Task.Rows.Start, End: s.Task.Rows.End, Bytes: s.Task.Bytes}
	for _, in := range s.Inputs {
		f := in.File
		w.Inputs = append(w.Inputs, wireInput{Region: f.Region, Family: f.Family, Name: f.Name,
			Size: f.Size, First: f.FirstRow, Last: f.LastRow, HasTime: f.HasTime,
			MinTime: f.MinTime, MaxTime: f.MaxTime, Path: in.Path, Ref: in.Reference})
	}
	return w
}

// EncodeTaskSpec writes by hand what json.Marshal makes of the wire form;
// the two must agree byte for byte (DecodeTaskSpec reads the JSON), and
// the buffer is sized exactly when no string needs escaping.
func TestEncodeTaskSpecIsJSONOfWire(t *testing.T) {
	odd := []string{"", "plain", "a\"b", `back\slash`, "<&>", "tab\tnl\ncr\r", "\x00\x01\x1f\x7f", "é ü 日本",
		"bad\xffutf8", "line\u2028sep\u2029", "\b\f"}
	rows := [][]byte{nil, {}, {0}, []byte("a"), {0xff, 0xfe, 0xfd}, []byte("user0000001000")}
	ints := []int64{0, 1, -1, 42, math.MaxInt64, math.MinInt64}
	specs := []TaskSpec{sampleTaskSpec(), {Task: Task{ID: "whole-000", Region: "r"}}}
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(n int) int { return rng.IntN(n) }
	for range 500 {
		s := TaskSpec{Task: Task{ID: odd[pick(len(odd))], Region: odd[pick(len(odd))],
			Rows: KeyRange{Start: rows[pick(len(rows))], End: rows[pick(len(rows))]}, Bytes: ints[pick(len(ints))]}}
		for range pick(4) {
			s.Inputs = append(s.Inputs, TaskInput{
				File: StoreFile{Region: odd[pick(len(odd))], Family: odd[pick(len(odd))], Name: odd[pick(len(odd))],
					Size: ints[pick(len(ints))], FirstRow: rows[pick(len(rows))], LastRow: rows[pick(len(rows))],
					HasTime: pick(2) == 0, MinTime: ints[pick(len(ints))], MaxTime: ints[pick(len(ints))]},
				Path: odd[pick(len(odd))], Reference: rows[pick(len(rows))]})
		}
		specs = append(specs, s)
	}
	exact := 0
	for i, s := range specs {
		got, err := EncodeTaskSpec(s)
		if err != nil {
			t.Fatalf("spec %d: %v", i, err)
		}
		want, err := json.Marshal(wireOf(s))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("spec %d:\n got %s\nwant %s", i, got, want)
		}
		if !bytes.Contains(want, []byte(`\`)) { // every string went as it is
			exact++
			if cap(got) != len(got) {
				t.Errorf("spec %d needs no escaping but its buffer holds %d for %d bytes", i, cap(got), len(got))
			}
		}
	}
	if exact == 0 {
		t.Error("no spec without escapes was tried")
	}
}
