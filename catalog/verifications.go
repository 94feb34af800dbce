package catalog

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// VerificationState is where a verification is: running, or how it ended.
type VerificationState string

// The states of a verification.
const (
	// VerificationRunning: a server compares the two sides now.
	VerificationRunning VerificationState = "running"
	// VerificationPassed: the two sides held the same cells (after the repair, if asked).
	VerificationPassed VerificationState = "passed"
	// VerificationFailed: the two sides differ; the report lists how.
	VerificationFailed VerificationState = "failed"
	// VerificationError: the comparison could not be made, or its server stopped.
	VerificationError VerificationState = "error"
)

// Valid reports whether s is one of the states.
func (s VerificationState) Valid() bool {
	switch s {
	case VerificationRunning, VerificationPassed, VerificationFailed, VerificationError:
		return true
	}
	return false
}

// Final reports whether s is an end state.
func (s VerificationState) Final() bool { return s.Valid() && s != VerificationRunning }

// Verification is one comparison of a range of a table on two clusters, run in the background
// by one server.
type Verification struct {
	// ID is "ver_" and 16 hex digits.
	ID string `gorm:"column:id;primaryKey" json:"id"`
	// Spec is what to compare (JSON, the API's form).
	Spec JSONText `gorm:"column:spec" json:"spec"`
	// State is running, passed, failed or error.
	State VerificationState `gorm:"column:state" json:"state"`
	// Report is what it found (JSON), empty while it runs or when it failed to run.
	Report JSONText `gorm:"column:report" json:"report,omitempty"`
	// Error says why a verification in state error ended so.
	Error string `gorm:"column:error" json:"error,omitempty"`
	// Runner is the id of the server running it.
	Runner string `gorm:"column:runner" json:"runner"`
	// CreatedBy names the token that created it.
	CreatedBy string `gorm:"column:created_by" json:"createdBy"`
	// CreatedAt is when it was created; HeartbeatAt when its runner last said it still runs;
	// FinishedAt when it ended (nil while it runs). UTC, microseconds.
	CreatedAt   time.Time  `gorm:"column:created_at;autoCreateTime:false" json:"createdAt"`
	HeartbeatAt time.Time  `gorm:"column:heartbeat_at" json:"heartbeatAt"`
	FinishedAt  *time.Time `gorm:"column:finished_at" json:"finishedAt,omitempty"`
}

// TableName implements gorm's tabler.
func (Verification) TableName() string { return "verifications" }

// NewVerificationID returns a new verification id.
func NewVerificationID() string {
	return newID("ver_")
}

// CreateVerification records a new verification in state running, created and heartbeat now.
func (c *Catalog) CreateVerification(ctx context.Context, v Verification) (Verification, error) {
	if v.ID == "" || len(v.ID) > 64 {
		return Verification{}, fmt.Errorf("catalog: %w: verification id %q: want 1 to 64 bytes", ErrInvalid, v.ID)
	}
	spec, err := v.Spec.compact()
	if err != nil || spec == "" {
		return Verification{}, fmt.Errorf("catalog: %w: verification %q: spec is not a JSON document", ErrInvalid, v.ID)
	}
	now := c.stampNow()
	v.Spec, v.State, v.Report, v.Error = spec, VerificationRunning, "", ""
	v.CreatedAt, v.HeartbeatAt, v.FinishedAt = now, now, nil
	err = c.write(ctx, nil, func(tx *gorm.DB) error { return tx.Create(&v).Error })
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return Verification{}, fmt.Errorf("catalog: create verification %q: %w", v.ID,
			&ConflictError{Kind: "verification", Key: v.ID, What: "id", Detail: "a verification of that id exists"})
	}
	if err != nil {
		return Verification{}, fmt.Errorf("catalog: create verification %q: %w", v.ID, err)
	}
	return normVerification(v), nil
}

// GetVerification returns the verification of that id, or ErrNotFound.
func (c *Catalog) GetVerification(ctx context.Context, id string) (Verification, error) {
	v, err := take[Verification](c.db.WithContext(ctx), "verification", "id", id)
	if err != nil {
		return Verification{}, fmt.Errorf("catalog: %w", err)
	}
	return normVerification(v), nil
}

// VerificationFilter pages verifications.
type VerificationFilter struct {
	// Cursor is the Next of the page before; empty starts at the newest.
	Cursor string
	// Limit is the page size: default DefaultPageSize, at most MaxPageSize.
	Limit int
}

// VerificationPage is one page of a verification listing.
type VerificationPage struct {
	// Verifications are ordered newest first (createdAt, then id, descending).
	Verifications []Verification `json:"verifications"`
	// Next is the cursor of the page after, empty on the last page.
	Next string `json:"next,omitempty"`
}

// ListVerifications returns a page of verifications, newest first. The order is stable:
// paging from an empty cursor to the last page returns every verification that existed
// throughout exactly once.
func (c *Catalog) ListVerifications(ctx context.Context, f VerificationFilter) (VerificationPage, error) {
	limit := pageSize(f.Limit)
	q := c.db.WithContext(ctx).Model(&Verification{})
	if f.Cursor != "" {
		cur, err := decodeCursor(f.Cursor, cursorVerifications)
		if err != nil {
			return VerificationPage{}, fmt.Errorf("catalog: list verifications: %w", err)
		}
		at := microsTime(cur.micros)
		q = q.Where("(created_at < ? OR (created_at = ? AND id < ?))", at, at, cur.key)
	}
	vs, next, err := fetchPage(q.Order("created_at DESC, id DESC"), limit, func(last Verification) cursor {
		return cursor{kind: cursorVerifications, micros: last.CreatedAt.UnixMicro(), key: last.ID}
	})
	if err != nil {
		return VerificationPage{}, fmt.Errorf("catalog: list verifications: %w", err)
	}
	for i := range vs {
		vs[i] = normVerification(vs[i])
	}
	return VerificationPage{Verifications: vs, Next: next}, nil
}

// HeartbeatVerification records that the verification's runner still runs it; ErrNotFound
// when no running verification has that id.
func (c *Catalog) HeartbeatVerification(ctx context.Context, id, runner string) error {
	var n int64
	err := c.write(ctx, nil, func(tx *gorm.DB) error {
		res := tx.Model(&Verification{}).Where("id = ? AND state = ? AND runner = ?", id, VerificationRunning, runner).Update("heartbeat_at", c.stampNow())
		n = res.RowsAffected
		return res.Error
	})
	if err != nil {
		return fmt.Errorf("catalog: heartbeat of verification %q: %w", id, err)
	}
	if n == 0 {
		return fmt.Errorf("catalog: running verification %q: %w", id, ErrNotFound)
	}
	return nil
}

// FinishVerification ends a running verification in state (passed, failed or error) with
// its report and error; ErrNotFound when there is no such verification, ErrConflict when it
// has ended already (say, marked interrupted).
func (c *Catalog) FinishVerification(ctx context.Context, id string, state VerificationState, report JSONText, why string) (Verification, error) {
	if !state.Final() {
		return Verification{}, fmt.Errorf("catalog: finish verification %q: %w: state %q is not an end state", id, ErrInvalid, state)
	}
	report, err := report.compact()
	if err != nil {
		return Verification{}, fmt.Errorf("catalog: finish verification %q: %w: report is not JSON: %v", id, ErrInvalid, err)
	}
	var out Verification
	err = c.write(ctx, nil, func(tx *gorm.DB) error {
		v, err := take[Verification](c.lock(tx), "verification", "id", id)
		if err != nil {
			return err
		}
		if v.State != VerificationRunning {
			return &ConflictError{Kind: "verification", Key: id, What: "state", Detail: "it ended already: " + string(v.State)}
		}
		now := c.stampNow()
		v.State, v.Report, v.Error, v.HeartbeatAt, v.FinishedAt = state, report, why, now, &now
		if err := tx.Model(&Verification{}).Where("id = ?", id).Updates(map[string]any{
			"state": state, "report": report, "error": why, "heartbeat_at": now, "finished_at": now}).Error; err != nil {
			return fmt.Errorf("write verification %q: %w", id, err)
		}
		out = normVerification(v)
		return nil
	})
	if err != nil {
		return Verification{}, fmt.Errorf("catalog: %w", err)
	}
	return out, nil
}

// AdoptVerifications hands to runner the running verifications that no live server runs:
// those of runner itself from before it started again (its own id), and every one whose
// heartbeat is older than staleBefore (zero: none by age). Each is taken in a conditional
// update, so of servers adopting at once, one wins each; it returns those runner now runs,
// their heartbeat renewed.
func (c *Catalog) AdoptVerifications(ctx context.Context, runner string, own bool, staleBefore time.Time) ([]Verification, error) {
	if runner == "" {
		return nil, fmt.Errorf("catalog: adopt verifications: %w: no runner named", ErrInvalid)
	}
	if !own && staleBefore.IsZero() {
		return nil, nil
	}
	var out []Verification
	err := c.write(ctx, nil, func(tx *gorm.DB) error {
		out = out[:0]
		orphaned := func(q *gorm.DB) *gorm.DB {
			q = q.Where("state = ?", VerificationRunning)
			switch {
			case own && !staleBefore.IsZero():
				return q.Where("(runner = ? OR heartbeat_at < ?)", runner, stamp(staleBefore))
			case own:
				return q.Where("runner = ?", runner)
			}
			return q.Where("heartbeat_at < ?", stamp(staleBefore))
		}
		var found []Verification
		if err := orphaned(tx.Model(&Verification{})).Order("created_at, id").Find(&found).Error; err != nil {
			return err
		}
		now := c.stampNow()
		for _, v := range found {
			res := orphaned(tx.Model(&Verification{}).Where("id = ?", v.ID)).Updates(map[string]any{"runner": runner, "heartbeat_at": now})
			if res.Error != nil {
				return res.Error
			}
			if res.RowsAffected == 1 {
				v.Runner, v.HeartbeatAt = runner, now
				out = append(out, normVerification(v))
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("catalog: adopt verifications: %w", err)
	}
	return out, nil
}

func normVerification(v Verification) Verification {
	v.CreatedAt, v.HeartbeatAt = v.CreatedAt.UTC(), v.HeartbeatAt.UTC()
	v.FinishedAt = optTime(v.FinishedAt, time.Time.UTC)
	return v
}
