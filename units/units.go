// Package units reads the sizes and rates operators type: "512MiB", "200MB/s", "1.5 GiB".
// progress writes them back for people.
package units

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseBytes reads a size with an optional unit: B, KB/MB/GB/TB (powers of 1000),
// KiB/MiB/GiB/TiB (powers of 1024); K, M, G and T alone are taken as binary.
func ParseBytes(s string) (float64, error) { return parseAmount(s, false) }

// parseAmount reads a number with an optional unit, as ParseBytes; with exp the number may
// have an exponent (1e12).
func parseAmount(s string, exp bool) (float64, error) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	if i == 0 {
		return 0, errors.New("no number")
	}
	// An exponent (1e12, 2.5E+9): an "e" followed by digits, not the start of a unit.
	if j := exponentEnd(s, i); exp && j > i {
		i = j
	}
	v, err := strconv.ParseFloat(s[:i], 64)
	if err != nil && !(exp && errors.Is(err, strconv.ErrRange) && math.IsInf(v, 1)) { // a rate too large: +Inf, past MaxRate
		return 0, fmt.Errorf("bad number %q", s[:i])
	}
	u, ok := multiplier(strings.ToLower(strings.TrimSpace(s[i:])))
	if !ok {
		return 0, fmt.Errorf("unknown unit %q", s[i:])
	}
	return v * u, nil
}

// exponentEnd is the end of the exponent of a number that ends at i in s ("e", an optional
// sign, digits), or i when none follows.
func exponentEnd(s string, i int) int {
	if i >= len(s) || s[i] != 'e' && s[i] != 'E' {
		return i
	}
	j := i + 1
	if j < len(s) && (s[j] == '+' || s[j] == '-') {
		j++
	}
	k := j
	for k < len(s) && s[k] >= '0' && s[k] <= '9' {
		k++
	}
	if k == j {
		return i
	}
	return k
}

func multiplier(unit string) (float64, bool) {
	switch unit {
	case "", "b":
		return 1, true
	case "k", "kib":
		return 1 << 10, true
	case "kb":
		return 1e3, true
	case "m", "mib":
		return 1 << 20, true
	case "mb":
		return 1e6, true
	case "g", "gib":
		return 1 << 30, true
	case "gb":
		return 1e9, true
	case "t", "tib":
		return 1 << 40, true
	case "tb":
		return 1e12, true
	}
	return 0, false
}

// MaxRate is the largest rate ParseRate takes, in bytes per second: 1 TB/s, far past what
// any cluster reads, so that a typo (1e21GB/s) is refused rather than taken as no limit
// at all.
const MaxRate = 1e12

// ParseRate reads a rate in bytes per second such as 200MB/s, 1.5GiB/s or 1048576 (the
// "/s" is optional; the number may have an exponent, 2e8). It must be more than 0 and at
// most MaxRate (1TB/s).
func ParseRate(s string) (float64, error) {
	v, err := parseAmount(strings.TrimSuffix(strings.TrimSpace(s), "/s"), true)
	if err != nil {
		return 0, fmt.Errorf("%q: %v (e.g. 200MB/s, 1.5GiB/s)", s, err)
	}
	if v <= 0 {
		return 0, fmt.Errorf("%q: must be more than 0", s)
	}
	if v > MaxRate || math.IsNaN(v) {
		return 0, fmt.Errorf("%q: more than the largest rate taken, 1TB/s (use \"none\" for no limit)", s)
	}
	return v, nil
}

// ParseLimit reads a rate limit: a rate as ParseRate reads it, or 0 (no limit) for "0",
// "0/s", "none" or "unlimited".
func ParseLimit(s string) (float64, error) {
	switch t := strings.ToLower(strings.TrimSpace(s)); t {
	case "none", "unlimited":
		return 0, nil
	default:
		if v, err := strconv.ParseFloat(strings.TrimSuffix(t, "/s"), 64); err == nil && v == 0 {
			return 0, nil
		}
	}
	return ParseRate(s)
}
