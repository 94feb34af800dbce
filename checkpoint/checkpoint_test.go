package checkpoint

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestAdvanceAndResume(t *testing.T) {
	start, end := []byte("b"), []byte("m")
	c := New("r1-000")
	if from, ok := c.ResumeFrom(start, "f"); !ok || !bytes.Equal(from, start) {
		t.Fatalf("fresh task resumes family f from %q, %v; want %q", from, ok, start)
	}
	c, err := c.Advance(end, Loaded{Family: "f", Mark: []byte("d"), Files: 1, Cells: 10, Bytes: 100})
	if err != nil {
		t.Fatal(err)
	}
	c, err = c.Advance(end, Loaded{Family: "g", Mark: []byte("c"), Files: 1, Cells: 5, Bytes: 50})
	if err != nil {
		t.Fatal(err)
	}
	if from, ok := c.ResumeFrom(start, "f"); !ok || string(from) != "d" {
		t.Fatalf("family f resumes from %q, %v; want d", from, ok)
	}
	if from, ok := c.ResumeFrom(start, "g"); !ok || string(from) != "c" {
		t.Fatalf("family g resumes from %q, %v; want c", from, ok)
	}
	if c.Done([]string{"f", "g"}) {
		t.Fatal("task done before its last loads")
	}
	c, err = c.Advance(end, Loaded{Family: "f", Last: true, Files: 1, Cells: 1, Bytes: 10})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.ResumeFrom(start, "f"); ok {
		t.Fatal("a done family still resumes")
	}
	if c.Done([]string{"f", "g"}) || !c.Done([]string{"f"}) {
		t.Fatal("Done is wrong with one family left")
	}
	c, err = c.Advance(end, Loaded{Family: "g", Last: true})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Done([]string{"f", "g"}) {
		t.Fatal("task not done after every family's last load")
	}
	if c.Files != 3 || c.Cells != 16 || c.Bytes != 160 {
		t.Fatalf("counters %d files, %d cells, %d bytes; want 3, 16, 160", c.Files, c.Cells, c.Bytes)
	}
	if got := c.String(); got != "task r1-000: f=done g=done (3 files, 16 cells, 160 bytes)" {
		t.Fatalf("String() = %q", got)
	}
}

func TestAdvanceRefusesWhatCannotHappen(t *testing.T) {
	end := []byte("m")
	c, err := New("t").Advance(end, Loaded{Family: "f", Mark: []byte("e")})
	if err != nil {
		t.Fatal(err)
	}
	done, err := c.Advance(end, Loaded{Family: "g", Last: true})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		from Checkpoint
		l    Loaded
		want string
	}{
		{"backwards", c, Loaded{Family: "f", Mark: []byte("d")}, `mark "d" would move back from "e"`},
		{"past the end", c, Loaded{Family: "f", Mark: []byte("n")}, `past the task's end "m"`},
		{"no mark", c, Loaded{Family: "f"}, "needs a mark"},
		{"after done", done, Loaded{Family: "g", Mark: []byte("x")}, "already done"},
	}
	for _, tt := range tests {
		got, err := tt.from.Advance(end, tt.l)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want it to contain %q", tt.name, err, tt.want)
		}
		if got.String() != tt.from.String() {
			t.Errorf("%s: a refused load changed the checkpoint to %s", tt.name, got)
		}
	}
	// The same mark again (a load repeated after a crash) is fine.
	if _, err := c.Advance(end, Loaded{Family: "f", Mark: []byte("e")}); err != nil {
		t.Errorf("repeating a mark: %v", err)
	}
	// Without an end (the last region), any forward mark is fine.
	if _, err := c.Advance(nil, Loaded{Family: "f", Mark: []byte("\xff\xff")}); err != nil {
		t.Errorf("mark in the last region: %v", err)
	}
}

func TestAdvanceDoesNotAlias(t *testing.T) {
	mark := []byte("k")
	c, err := New("t").Advance(nil, Loaded{Family: "f", Mark: mark})
	if err != nil {
		t.Fatal(err)
	}
	mark[0] = 'z'
	c2, err := c.Advance(nil, Loaded{Family: "f", Mark: []byte("p")})
	if err != nil {
		t.Fatal(err)
	}
	if string(c.Families["f"].Mark) != "k" || string(c2.Families["f"].Mark) != "p" {
		t.Fatalf("checkpoints share state: %s, %s", c, c2)
	}
}

func TestEncodeDecode(t *testing.T) {
	c, _ := New("r9-001").Advance(nil, Loaded{Family: "f", Mark: []byte{0, 0xff, 'a'}, Files: 2, Cells: 3, Bytes: 4})
	c, _ = c.Advance(nil, Loaded{Family: "g", Last: true})
	b, err := c.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode("r9-001", b)
	if err != nil {
		t.Fatal(err)
	}
	if back.String() != c.String() {
		t.Fatalf("round trip: %s, want %s", back, c)
	}
	if empty, err := Decode("x", nil); err != nil || empty.Task != "x" || len(empty.Families) != 0 {
		t.Fatalf("Decode(empty) = %s, %v", empty, err)
	}
	bad := map[string]string{
		`{"v":1,"task":"other"}`:             `names task "other"`,
		`{"v":2,"task":"r9-001"}`:            "version 2",
		`{"v":1,"task":"r9-001","files":-1}`: "negative counter",
		`{"v":1,"task":"r9-001","families":{"f":{"mark":"YQ==","done":true}}}`: "done and has a mark",
		`{"v":1,"task":"r9-001","surprise":1}`:                                 "unknown field",
		`{"v":1,`:                                                              "unexpected EOF",
		strings.Repeat(" ", MaxEncoded+1):                                      "over the",
	}
	for in, want := range bad {
		_, err := Decode("r9-001", []byte(in))
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), want) {
			t.Errorf("Decode(%.40q) = %v, want ErrFormat containing %q", in, err, want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	c, _ := New("t").Advance(nil, Loaded{Family: "f", Mark: []byte("k"), Cells: 1})
	b, _ := c.Encode()
	f.Add(b)
	f.Add([]byte(`{"v":1,"task":"t","families":{"f":{"done":true}}}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := Decode("t", b)
		if err != nil {
			return
		}
		again, err := c.Encode()
		if err != nil {
			t.Fatalf("a decoded checkpoint does not encode: %v", err)
		}
		back, err := Decode("t", again)
		if err != nil || back.String() != c.String() {
			t.Fatalf("re-encoded checkpoint reads back as %s (%v), want %s", back, err, c)
		}
	})
}
