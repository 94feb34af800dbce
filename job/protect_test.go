package job

import (
	"testing"
	"time"
)

func TestParseProtect(t *testing.T) {
	cases := []struct {
		in   string
		want Protect
		bad  bool
	}{
		{in: "", want: Protect{}},
		{in: "2x", want: Protect{Factor: 2}},
		{in: "1.5X", want: Protect{Factor: 1.5}},
		{in: "20ms", want: Protect{Latency: 20 * time.Millisecond}},
		{in: " 1s ", want: Protect{Latency: time.Second}},
		{in: "1x", bad: true},
		{in: "0.5x", bad: true},
		{in: "101x", bad: true},
		{in: "x", bad: true},
		{in: "-5ms", bad: true},
		{in: "2m", bad: true},
		{in: "fast", bad: true},
	}
	for _, tc := range cases {
		got, err := ParseProtect(tc.in)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("ParseProtect(%q) = %+v, %v; want %+v, bad %v", tc.in, got, err, tc.want, tc.bad)
		}
		if err == nil {
			if back, err := ParseProtect(got.String()); err != nil || back != got {
				t.Errorf("%q: String %q reads back as %+v, %v", tc.in, got.String(), back, err)
			}
		}
	}
}

func TestRecordKeepsProtectSource(t *testing.T) {
	r := Record{Spec: Spec{Table: "t"}, Snapshot: "s", Options: RunOptions{Settings: Settings{ProtectSource: Protect{Factor: 2.5}}, Detached: true}}
	b, err := EncodeRecord(r)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeRecord(b)
	if err != nil || back.Options.ProtectSource != r.Options.ProtectSource {
		t.Fatalf("decoded %+v, %v", back.Options, err)
	}
	if _, err := EncodeRecord(Record{Spec: Spec{Table: "t"}, Snapshot: "s", Options: RunOptions{Settings: Settings{ProtectSource: Protect{Factor: 0.5}}}}); err == nil {
		t.Fatal("a factor below 1 was encoded")
	}
	_, set, err := Request{Table: "t", ProtectSource: "30ms"}.Resolve()
	if err != nil || set.ProtectSource != (Protect{Latency: 30 * time.Millisecond}) {
		t.Fatalf("resolve: %+v, %v", set, err)
	}
	_, _, err = Request{Table: "t", ProtectSource: "fast"}.Resolve()
	if fe := FieldErrors(err); len(fe) != 1 || fe[0].Field != "protectSource" || fe[0].Flag() != "--protect-source" {
		t.Fatalf("bad target: %v", err)
	}
}
