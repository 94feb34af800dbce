package units

import (
	"testing"
	"time"
)

func TestParseAge(t *testing.T) {
	for in, want := range map[string]time.Duration{"90d": 90 * 24 * time.Hour, "0": 0, "0d": 0, "36h": 36 * time.Hour,
		"1h30m": 90 * time.Minute, "36500d": 36500 * 24 * time.Hour} {
		if got, err := ParseAge(in); err != nil || got != want {
			t.Errorf("ParseAge(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "d", "-1d", "1.5d", "+1d", "90 days", "-3h", "36501d", " 1h"} {
		if got, err := ParseAge(bad); err == nil {
			t.Errorf("ParseAge(%q) = %v, want an error", bad, got)
		}
	}
}
