package catalog

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// DefaultPruneBatch is how many rows one prune call deletes when asked for none: small enough
// that a delete holds its locks (SQLite's one writer above all) for a moment only.
const DefaultPruneBatch = 500

// PruneAudit deletes the audit log's entries recorded before before, oldest first, at most
// batch of them (default DefaultPruneBatch), and returns how many it deleted. A caller that
// wants them all calls it until it returns fewer than batch.
func (c *Catalog) PruneAudit(ctx context.Context, before time.Time, batch int) (int, error) {
	if batch <= 0 {
		batch = DefaultPruneBatch
	}
	before = stamp(before)
	var ids []int64
	db := c.db.WithContext(ctx)
	if err := db.Model(&AuditEntry{}).Where("time < ?", before).Order("id").Limit(batch).Pluck("id", &ids).Error; err != nil {
		return 0, fmt.Errorf("catalog: prune the audit log: find entries before %s: %w", before.Format(time.RFC3339), err)
	}
	if len(ids) == 0 {
		return 0, nil
	}
	res := db.Where("id IN ? AND time < ?", ids, before).Delete(&AuditEntry{})
	if res.Error != nil {
		return 0, fmt.Errorf("catalog: prune the audit log: delete %d entries: %w", len(ids), res.Error)
	}
	return int(res.RowsAffected), nil
}

// PruneJobs deletes jobs that ended (a final state, or lost) and were last updated before
// before, oldest update first, at most batch of them (default DefaultPruneBatch), with their
// history and progress samples (the schema cascades; the final report is the job row's). It
// returns how many it deleted: fewer than batch when no more are due (it reads past the
// jobs it keeps to fill the batch).
//
// A job a relocation still references is kept: one named by a window that has not finished
// (the relocation's driver reads that window's jobs), or by a window that finished at or
// after before (its history is as young as the retention keeps). A window that finished
// before the cut keeps its own figures (bytes, files, outcome); the ids it names may then
// lead nowhere, as a job's own history does once it is pruned.
func (c *Catalog) PruneJobs(ctx context.Context, before time.Time, batch int) (int, error) {
	if batch <= 0 {
		batch = DefaultPruneBatch
	}
	before = stamp(before)
	db := c.db.WithContext(ctx)
	var windows []RelocationWindow
	if err := db.Select("relocation_id", "seq", "job_ids").Where("finished_at IS NULL OR finished_at >= ?", before).
		Find(&windows).Error; err != nil {
		return 0, fmt.Errorf("catalog: prune jobs: find the jobs relocations reference: %w", err)
	}
	kept := map[string]bool{}
	for _, w := range windows {
		for _, id := range w.JobIDs {
			kept[id] = true
		}
	}
	// Page through the candidates by (updated_at, id), skipping the kept ones, until a
	// batch is deleted or none are left.
	type key struct {
		ID        string    `gorm:"column:id"`
		UpdatedAt time.Time `gorm:"column:updated_at"`
	}
	var after *key
	deleted := 0
	for deleted < batch {
		q := db.Model(&Job{}).Select("id", "updated_at").Where("state IN ? AND updated_at < ?", finalStates(), before)
		if after != nil {
			q = q.Where("(updated_at > ? OR (updated_at = ? AND id > ?))", after.UpdatedAt, after.UpdatedAt, after.ID)
		}
		var page []key
		if err := q.Order("updated_at, id").Limit(batch).Find(&page).Error; err != nil {
			return deleted, fmt.Errorf("catalog: prune jobs: find jobs that ended before %s: %w", before.Format(time.RFC3339), err)
		}
		if len(page) == 0 {
			break
		}
		after = &page[len(page)-1]
		var ids []string
		for _, k := range page {
			if !kept[k.ID] && len(ids) < batch-deleted {
				ids = append(ids, k.ID)
			}
		}
		if len(ids) == 0 {
			continue
		}
		var n int64
		err := c.write(ctx, retryable, func(tx *gorm.DB) error {
			// The state and age again: a job resumed since it was read is not deleted.
			res := tx.Where("id IN ? AND state IN ? AND updated_at < ?", ids, finalStates(), before).Delete(&Job{})
			n = res.RowsAffected
			return res.Error
		})
		if err != nil {
			return deleted, fmt.Errorf("catalog: prune jobs: delete %d jobs: %w", len(ids), err)
		}
		deleted += int(n)
	}
	return deleted, nil
}
