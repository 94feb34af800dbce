package apiclient

import (
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// readAll parses a whole stream.
func readAll(in string) ([]RawEvent, error) {
	r := newEventReader(strings.NewReader(in))
	var out []RawEvent
	for {
		ev, err := r.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
}

func TestEventReader(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []RawEvent
	}{
		{"one event", "event: state\ndata: {\"a\":1}\n\n", []RawEvent{{Type: "state", Data: `{"a":1}`}}},
		{"huma's form", "id: 3\nevent: progress\ndata: {}\n\n", []RawEvent{{Type: "progress", Data: "{}", ID: "3"}}},
		{"CRLF", "event: x\r\ndata: 1\r\n\r\n", []RawEvent{{Type: "x", Data: "1"}}},
		{"lone CR", "event: x\rdata: 1\r\r", []RawEvent{{Type: "x", Data: "1"}}},
		{"data lines join", "data: a\ndata:b\ndata:  c\n\n", []RawEvent{{Data: "a\nb\n c"}}},
		{"comments and unknown fields", ": hi\nfoo: bar\ndata: x\n\n", []RawEvent{{Data: "x"}}},
		{"no data no event", "event: state\n\ndata: y\n\n", []RawEvent{{Data: "y"}}},
		{"field without colon", "data\n\n", []RawEvent{{Data: ""}}},
		{"cut off at the end", "data: a\n\ndata: b\n", []RawEvent{{Data: "a"}}},
		{"BOM", "\xef\xbb\xbfdata: a\n\n", []RawEvent{{Data: "a"}}},
		{"id carries over", "id: 7\ndata: a\n\ndata: b\n\n", []RawEvent{{Data: "a", ID: "7"}, {Data: "b", ID: "7"}}},
		{"retry", "retry: 1500\ndata: a\n\nretry: x1\ndata: b\n\n", []RawEvent{{Data: "a", Retry: 1500}, {Data: "b"}}},
		{"empty", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readAll(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestEventReaderBounded(t *testing.T) {
	for name, in := range map[string]string{
		"one long line":   "data: " + strings.Repeat("x", MaxEventBytes+10) + "\n\n",
		"many data lines": strings.Repeat("data: "+strings.Repeat("y", 1000)+"\n", MaxEventBytes/1000+2) + "\n",
	} {
		if _, err := readAll(in); !errors.Is(err, ErrEventTooLong) {
			t.Errorf("%s: err %v, want ErrEventTooLong", name, err)
		}
	}
}

// encode writes events the way a server does, for the round trip of the fuzz test.
func encode(evs []RawEvent) string {
	var b strings.Builder
	for _, ev := range evs {
		if ev.Type != "" {
			b.WriteString("event: " + ev.Type + "\n")
		}
		if ev.Retry > 0 {
			b.WriteString("retry: " + strconv.Itoa(ev.Retry) + "\n")
		}
		for _, line := range strings.Split(ev.Data, "\n") {
			b.WriteString("data: " + line + "\n")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// FuzzEventReader: any bytes parse without panic into bounded events, and writing those
// events out again and parsing them gives the same events.
func FuzzEventReader(f *testing.F) {
	for _, s := range []string{
		"event: state\ndata: {\"id\":\"j\",\"state\":\"done\",\"final\":true}\n\n",
		"id: 1\nevent: progress\ndata: {}\n\n",
		"data: a\r\ndata: b\r\n\r\n", "data: a\rdata: b\r\r", ": c\n\n", "retry: 10\ndata\n\n",
		"\xef\xbb\xbfevent:x\ndata:y\n\n", "data: \x00\xff\n\n", "event: a\r",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		evs, err := readAll(string(in))
		if err != nil && !errors.Is(err, ErrEventTooLong) {
			t.Fatalf("error %v", err)
		}
		for _, ev := range evs {
			if len(ev.Data)+len(ev.Type) > MaxEventBytes {
				t.Fatalf("event of %d bytes", len(ev.Data)+len(ev.Type))
			}
		}
		if err != nil {
			return
		}
		// Round trip: types and data lines hold no line ends, so encoding is exact (ids are
		// left out: the encoder does not write them).
		var want []RawEvent
		for _, ev := range evs {
			if strings.ContainsAny(ev.Type, "\r\n") || strings.Contains(ev.Data, "\r") {
				t.Fatalf("a line end inside a field: %+v", ev)
			}
			ev.ID = ""
			want = append(want, ev)
		}
		got, err := readAll(encode(want))
		if err != nil {
			if !errors.Is(err, ErrEventTooLong) {
				t.Fatal(err)
			}
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round trip of %q: got %+v, want %+v", in, got, want)
		}
	})
}
