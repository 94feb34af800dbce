package units

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// MaxAgeDays is the most whole days ParseAge reads: a hundred years.
const MaxAgeDays = 100 * 365

// ParseAge reads how long something lasts or is kept, as operators type it: whole days
// ("90d", at most MaxAgeDays) or a Go duration ("36h", "1h30m", "0"). It is never negative.
func ParseAge(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseUint(days, 10, 32)
		if err != nil || n > MaxAgeDays {
			return 0, fmt.Errorf("%q: want whole days from 0 to %d, such as 90d", s, MaxAgeDays)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q: want whole days (90d) or a duration (36h, 1h30m)", s)
	}
	return d, nil
}
