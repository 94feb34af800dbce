package job

import (
	"errors"
	"strings"
	"testing"
)

func TestPinMode(t *testing.T) {
	for in, want := range map[string]PinMode{"": PinSnapshot, "snapshot": PinSnapshot, "live": PinLive} {
		got, err := ParsePinMode(in)
		if err != nil || got != want {
			t.Errorf("ParsePinMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"Live", "flush", " live"} {
		if got, err := ParsePinMode(in); err == nil || !strings.Contains(err.Error(), `"snapshot" or "live"`) {
			t.Errorf("ParsePinMode(%q) = %q, %v; want an error naming both modes", in, got, err)
		}
	}
	_, set, err := Request{Table: "t", Pin: "live"}.Resolve()
	if err != nil || !set.Pin.Live() {
		t.Errorf("resolve pin live: %+v, %v", set, err)
	}
	_, set, err = Request{Table: "t"}.Resolve()
	if err != nil || set.Pin.Live() || set.Pin != PinSnapshot {
		t.Errorf("resolve without a pin: %+v, %v", set, err)
	}
	_, _, err = Request{Table: "t", Pin: "later"}.Resolve()
	if fe := FieldErrors(err); len(fe) != 1 || fe[0].Field != "pin" || fe[0].Flag() != "--pin" {
		t.Errorf("bad pin: %v", err)
	}
	// A record without a pin reads as a snapshot's; a bad one is refused.
	r := Record{Spec: Spec{Table: "t"}, Snapshot: "s"}
	b, err := EncodeRecord(r)
	if err != nil || strings.Contains(string(b), `"pin"`) {
		t.Fatalf("record of a snapshot pin: %s, %v", b, err)
	}
	if _, err := EncodeRecord(Record{Spec: Spec{Table: "t"}, Snapshot: "s", Options: RunOptions{Settings: Settings{Pin: "later"}}}); err == nil {
		t.Error("a record with pin later was encoded")
	}
	if _, err := DecodeRecord([]byte(`{"v":2,"table":"t","snapshot":"s","pin":"later"}`)); !errors.Is(err, ErrRecord) {
		t.Errorf("decode a record with pin later: %v, want ErrRecord", err)
	}
}
