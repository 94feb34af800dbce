package catalog

import (
	"context"
	"fmt"
)

// AppendAudit records one entry of the audit log; an unset Time is now. It returns the entry
// with its id.
func (c *Catalog) AppendAudit(ctx context.Context, e AuditEntry) (AuditEntry, error) {
	e.ID = 0
	if e.Time.IsZero() {
		e.Time = c.now()
	}
	e.Time = stamp(e.Time)
	if e.Method == "" {
		return AuditEntry{}, fmt.Errorf("catalog: append audit entry: %w: no method", ErrInvalid)
	}
	if e.Role != "" && !e.Role.Valid() {
		return AuditEntry{}, fmt.Errorf("catalog: append audit entry: %w: unknown role %q", ErrInvalid, e.Role)
	}
	if err := c.db.WithContext(ctx).Create(&e).Error; err != nil {
		return AuditEntry{}, fmt.Errorf("catalog: append audit entry %s %s: %w", e.Method, e.Path, err)
	}
	return e, nil
}

// AuditPage is one page of the audit log.
type AuditPage struct {
	// Entries are newest first.
	Entries []AuditEntry `json:"entries"`
	// Next is the cursor of the page after (older entries), empty on the last page.
	Next string `json:"next,omitempty"`
}

// ListAudit returns a page of the audit log, newest first, from the cursor of the page
// before (empty: the newest entry), limit entries at most (default DefaultPageSize, at most
// MaxPageSize). tokenID, when set, keeps only that token's entries.
func (c *Catalog) ListAudit(ctx context.Context, tokenID, cur string, limit int) (AuditPage, error) {
	limit = pageSize(limit)
	q := c.db.WithContext(ctx).Model(&AuditEntry{})
	if tokenID != "" {
		q = q.Where("token_id = ?", tokenID)
	}
	if cur != "" {
		cu, err := decodeCursor(cur, cursorAudit)
		if err != nil {
			return AuditPage{}, fmt.Errorf("catalog: list audit log: %w", err)
		}
		q = q.Where("id < ?", cu.micros)
	}
	es, next, err := fetchPage(q.Order("id DESC"), limit, func(last AuditEntry) cursor {
		return cursor{kind: cursorAudit, micros: last.ID}
	})
	if err != nil {
		return AuditPage{}, fmt.Errorf("catalog: list audit log: %w", err)
	}
	for i := range es {
		es[i].Time = es[i].Time.UTC()
	}
	return AuditPage{Entries: es, Next: next}, nil
}
