package relocation

import (
	"fmt"
	"time"
)

// ParseDuration reads a relocation's margin or max-lag, a Go duration such as 10m or 90s;
// empty is def. A negative one is refused. The server and rangecopy relocation create both
// check with it.
func ParseDuration(s string, def time.Duration) (time.Duration, error) {
	if s == "" {
		return def, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration such as 10m or 90s", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("%s is negative", s)
	}
	return d, nil
}
