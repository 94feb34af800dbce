package relocation

import (
	"fmt"
	"time"

	"github.com/robfig/cron/v3"
)

// ParseSchedule reads a cron expression such as "*/10 * * * *", "*/5 * * * * *" (seconds
// first) or "CRON_TZ=Europe/Berlin 0 2 * * *". A schedule without a time zone is in UTC.
func ParseSchedule(expr string) (Schedule, error) {
	// Five fields (minute hour day-of-month month day-of-week), or six with seconds first,
	// or a descriptor (@hourly, @every 10m); a CRON_TZ=Area/City prefix names the zone.
	p := cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)
	s, err := p.Parse(expr)
	if err != nil {
		return nil, fmt.Errorf("cron expression %q: %w", expr, err)
	}
	if spec, ok := s.(*cron.SpecSchedule); ok && spec.Location == time.Local {
		spec.Location = time.UTC
	}
	// A schedule that never fires (Feb 30) would never catch up.
	if s.Next(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)).IsZero() {
		return nil, fmt.Errorf("cron expression %q: it never fires", expr)
	}
	return s, nil
}
