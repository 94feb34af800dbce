package job

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Protect is how slow a copy may make the source's reads (rangecopy copy
// --protect-source): the p99 latency of small Gets on the source, either as
// a factor of the p99 measured before the copy (Factor, "2x") or as a
// latency (Latency, "20ms"). The zero value asks for no protection.
type Protect struct {
	// Factor is the target as a multiple of the idle p99; 0 when Latency
	// is set.
	Factor float64
	// Latency is the target p99; 0 when Factor is set.
	Latency time.Duration
}

// MaxProtectFactor and MaxProtectLatency bound a Protect target.
const (
	MaxProtectFactor  = 100
	MaxProtectLatency = time.Minute
)

// ParseProtect reads a --protect-source target: a factor of the idle p99
// ending in "x" ("2x", "1.5x", more than 1) or a latency ("20ms", "1s");
// empty means no protection.
func ParseProtect(s string) (Protect, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Protect{}, nil
	}
	if f, ok := strings.CutSuffix(strings.ToLower(s), "x"); ok {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || !(v > 1 && v <= MaxProtectFactor) {
			return Protect{}, fmt.Errorf("%q: want a factor of the idle p99 above 1 and at most %d, e.g. 2x", s, MaxProtectFactor)
		}
		return Protect{Factor: v}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 || d > MaxProtectLatency {
		return Protect{}, fmt.Errorf("%q: want a factor of the idle p99 (2x) or a p99 latency up to %s (20ms)", s, MaxProtectLatency)
	}
	return Protect{Latency: d}, nil
}

// IsZero reports whether no protection is asked for.
func (p Protect) IsZero() bool { return p == Protect{} }

// String is the target as ParseProtect reads it; empty for none.
func (p Protect) String() string {
	switch {
	case p.Factor > 0:
		return strconv.FormatFloat(p.Factor, 'f', -1, 64) + "x"
	case p.Latency > 0:
		return p.Latency.String()
	}
	return ""
}

// Validate checks the bounds ParseProtect applies.
func (p Protect) Validate() error {
	if p.IsZero() {
		return nil
	}
	if _, err := ParseProtect(p.String()); err != nil || (p.Factor > 0 && p.Latency > 0) {
		return fmt.Errorf("job: protect-source target %+v: want a factor above 1 or a latency, not both", p)
	}
	return nil
}
