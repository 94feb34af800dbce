package job

import (
	"bytes"
	"errors"
	"fmt"
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
