// Package units reads the sizes and rates operators type: "512MiB", "200MB/s", "1.5 GiB".
// progress writes them back for people.
package units

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ParseBytes reads a size with an optional unit: B, KB/MB/GB/TB (powers of 1000),
// KiB/MiB/GiB/TiB (powers of 1024); K, M, G and T alone are taken as binary.
func ParseBytes(s string) (float64, error) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	if i == 0 {
		return 0, errors.New("no number")
	}
	v, err := strconv.ParseFloat(s[:i], 64)
	if err != nil {
		return 0, fmt.Errorf("bad number %q", s[:i])
	}
	u, ok := multiplier(strings.ToLower(strings.TrimSpace(s[i:])))
	if !ok {
		return 0, fmt.Errorf("unknown unit %q", s[i:])
	}
	return v * u, nil
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

// ParseRate reads a rate in bytes per second such as 200MB/s, 1.5GiB/s or 1048576 (the
// "/s" is optional). It must be more than 0.
func ParseRate(s string) (float64, error) {
	v, err := ParseBytes(strings.TrimSuffix(strings.TrimSpace(s), "/s"))
	if err != nil {
		return 0, fmt.Errorf("%q: %v (e.g. 200MB/s, 1.5GiB/s)", s, err)
	}
	if v <= 0 {
		return 0, fmt.Errorf("%q: must be more than 0", s)
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
