package catalog

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Relocation is a scheduled relocation of tables from one cluster to another: its scope, its
// schedule and the state of its state machine (package relocation), in typed columns.
type Relocation struct {
	// ID is "rel_" and 16 hex digits.
	ID string `gorm:"column:id;primaryKey" json:"id"`
	// SourceCluster and TargetCluster name registered clusters.
	SourceCluster string `gorm:"column:source_cluster" json:"sourceCluster"`
	TargetCluster string `gorm:"column:target_cluster" json:"targetCluster"`
	// Tables are the tables in scope: source, and target when renamed.
	Tables []RelocationTable `gorm:"column:tables;serializer:json" json:"tables"`
	// StartRow and StopRow bound the rows (HBase shell escapes); empty is the whole table.
	StartRow string `gorm:"column:start_row" json:"startRow,omitempty"`
	StopRow  string `gorm:"column:stop_row" json:"stopRow,omitempty"`
	// Families limits the copy to these families; empty is all.
	Families []string `gorm:"column:families;serializer:json" json:"families,omitempty"`
	// Bandwidth is each job's read cap, such as "200MB/s"; empty is none.
	Bandwidth string `gorm:"column:bandwidth" json:"bandwidth,omitempty"`
	// Schedule is the cron expression of the catch-up windows.
	Schedule string `gorm:"column:schedule" json:"schedule"`
	// MarginMs and MaxLagMs are the window margin and the cut-over's lag bound, in ms.
	MarginMs int64 `gorm:"column:margin_ms" json:"marginMs"`
	MaxLagMs int64 `gorm:"column:max_lag_ms" json:"maxLagMs"`
	// Phase is the relocation's phase; ResumePhase the one a paused relocation returns to.
	Phase       string `gorm:"column:phase" json:"phase"`
	ResumePhase string `gorm:"column:resume_phase" json:"resumePhase,omitempty"`
	// Why says why it failed, or who paused, cancelled or cut it over.
	Why string `gorm:"column:why" json:"why,omitempty"`
	// Watermark (ms) is the snapshot time of the last window that ran.
	Watermark int64 `gorm:"column:watermark" json:"watermark"`
	// NextTick is when the next catch-up is due; nil before the full copy ran.
	NextTick *time.Time `gorm:"column:next_tick" json:"nextTick,omitempty"`
	// Seq is the number of the last window made; RunningSeq the window running (0: none);
	// LastSeq the last window that ran (0: none).
	Seq        int `gorm:"column:seq" json:"seq"`
	RunningSeq int `gorm:"column:running_seq" json:"runningSeq"`
	LastSeq    int `gorm:"column:last_seq" json:"lastSeq"`
	// Verifying is true while a verification runs.
	Verifying bool `gorm:"column:verifying" json:"verifying"`
	// Verification is the last verification's outcome (JSON), empty before the first.
	Verification JSONText `gorm:"column:verification" json:"verification,omitempty"`
	// Report is the cut-over's report (JSON), empty until it ran.
	Report JSONText `gorm:"column:report" json:"report,omitempty"`
	// CreatedBy names the token that created it.
	CreatedBy string `gorm:"column:created_by" json:"createdBy"`
	// CreatedAt, UpdatedAt and FinishedAt (nil until it ended) are UTC, microseconds.
	CreatedAt  time.Time  `gorm:"column:created_at;autoCreateTime:false" json:"createdAt"`
	UpdatedAt  time.Time  `gorm:"column:updated_at;autoUpdateTime:false" json:"updatedAt"`
	FinishedAt *time.Time `gorm:"column:finished_at" json:"finishedAt,omitempty"`
}

// TableName implements gorm's tabler.
func (Relocation) TableName() string { return "relocations" }

// RelocationTable is one table of a relocation's scope.
type RelocationTable struct {
	// Source is the source table; Target the target table when it is renamed.
	Source string `json:"source"`
	Target string `json:"target,omitempty"`
}

// RelocationWindow is one window of a relocation: a full copy, a catch-up (or a tick skipped
// for one), or the final window.
type RelocationWindow struct {
	// RelocationID and Seq identify it.
	RelocationID string `gorm:"column:relocation_id;primaryKey" json:"relocationId"`
	Seq          int    `gorm:"column:seq;primaryKey;autoIncrement:false" json:"seq"`
	// Kind is full, catch-up or final.
	Kind string `gorm:"column:kind" json:"kind"`
	// StartTime and EndTime (ms) are the time range copied, [start, end); both 0 for the
	// full copy. SnapshotTime is the time it copies up to.
	StartTime    int64 `gorm:"column:start_time" json:"startTime"`
	EndTime      int64 `gorm:"column:end_time" json:"endTime"`
	SnapshotTime int64 `gorm:"column:snapshot_time" json:"snapshotTime"`
	// JobIDs are its jobs, one per table.
	JobIDs []string `gorm:"column:job_ids;serializer:json" json:"jobIds"`
	// Bytes are the input bytes read, FilesLoaded the files bulk loaded into the target and
	// FilesPruned the source files left unread by the time or row range, over its jobs
	// (the jobs do not count the files they read).
	Bytes       int64 `gorm:"column:bytes" json:"bytes"`
	FilesLoaded int64 `gorm:"column:files_loaded" json:"filesLoaded"`
	FilesPruned int64 `gorm:"column:files_pruned" json:"filesPruned"`
	// StartedAt and FinishedAt (nil while it runs) are UTC, microseconds.
	StartedAt  time.Time  `gorm:"column:started_at" json:"startedAt"`
	FinishedAt *time.Time `gorm:"column:finished_at" json:"finishedAt,omitempty"`
	// DurationMs is how long it ran; LagMs how far behind the source it finished
	// (FinishedAt − SnapshotTime).
	DurationMs int64 `gorm:"column:duration_ms" json:"durationMs"`
	LagMs      int64 `gorm:"column:lag_ms" json:"lagMs"`
	// Outcome is running, ran, skipped or failed; Why says why it failed or was skipped.
	Outcome string `gorm:"column:outcome" json:"outcome"`
	Why     string `gorm:"column:why" json:"why,omitempty"`
}

// TableName implements gorm's tabler.
func (RelocationWindow) TableName() string { return "relocation_windows" }

// NewRelocationID returns a new relocation id.
func NewRelocationID() string {
	return newID("rel_")
}

// checkRelocation normalizes a relocation for storing.
func checkRelocation(r Relocation) (Relocation, error) {
	if r.ID == "" || len(r.ID) > 64 {
		return r, fmt.Errorf("%w: relocation id %q: want 1 to 64 bytes", ErrInvalid, r.ID)
	}
	if r.Phase == "" {
		return r, fmt.Errorf("%w: relocation %q: no phase", ErrInvalid, r.ID)
	}
	if len(r.Tables) == 0 {
		return r, fmt.Errorf("%w: relocation %q: no tables", ErrInvalid, r.ID)
	}
	var err error
	if r.Verification, err = r.Verification.compact(); err != nil {
		return r, fmt.Errorf("%w: relocation %q: verification is not JSON: %v", ErrInvalid, r.ID, err)
	}
	if r.Report, err = r.Report.compact(); err != nil {
		return r, fmt.Errorf("%w: relocation %q: report is not JSON: %v", ErrInvalid, r.ID, err)
	}
	if r.Families == nil {
		r.Families = []string{}
	}
	r.NextTick = optTime(r.NextTick, stamp)
	r.FinishedAt = optTime(r.FinishedAt, stamp)
	return r, nil
}

// CreateRelocation records a new relocation. check, when not nil, sees every relocation that
// has not ended (finishedAt unset) inside the transaction, with the others' creations held
// off, and refuses the new one by returning an error (an overlapping scope); that error is
// returned as it is. The windows are created with it (its first window, the full copy).
func (c *Catalog) CreateRelocation(ctx context.Context, r Relocation, check func(open []Relocation) error, windows ...RelocationWindow) (Relocation, error) {
	r, err := checkRelocation(r)
	if err != nil {
		return Relocation{}, fmt.Errorf("catalog: %w", err)
	}
	now := c.stampNow()
	r.CreatedAt, r.UpdatedAt = now, now
	var refused error
	err = c.write(ctx, nil, func(tx *gorm.DB) error {
		refused = nil
		// Lock the clusters named (in name order): creations of relocations over the same
		// clusters run one at a time, so two cannot both pass the overlap check.
		names := []string{r.SourceCluster, r.TargetCluster}
		if names[0] > names[1] {
			names[0], names[1] = names[1], names[0]
		}
		var locked []string
		if err := c.lock(tx.Model(&Cluster{})).Where("name IN ?", names).Order("name").Pluck("name", &locked).Error; err != nil {
			return fmt.Errorf("lock clusters: %w", err)
		}
		if check != nil {
			var open []Relocation
			if err := tx.Where("finished_at IS NULL").Order("created_at, id").Find(&open).Error; err != nil {
				return fmt.Errorf("read open relocations: %w", err)
			}
			if err := check(open); err != nil {
				refused = err
				return err
			}
		}
		if err := tx.Create(&r).Error; err != nil {
			return err
		}
		for _, w := range windows {
			if err := (RelocationTx{c: c, tx: tx, id: r.ID}).PutWindow(w); err != nil {
				return err
			}
		}
		return nil
	})
	if refused != nil {
		return Relocation{}, refused
	}
	if err != nil {
		if errors.Is(err, gorm.ErrDuplicatedKey) {
			return Relocation{}, fmt.Errorf("catalog: create relocation %q: %w", r.ID,
				&ConflictError{Kind: "relocation", Key: r.ID, What: "id", Detail: "a relocation of that id exists"})
		}
		return Relocation{}, fmt.Errorf("catalog: create relocation %q: %w", r.ID, err)
	}
	return normRelocation(r), nil
}

// GetRelocation returns the relocation of that id, or ErrNotFound.
func (c *Catalog) GetRelocation(ctx context.Context, id string) (Relocation, error) {
	r, err := take[Relocation](c.db.WithContext(ctx), "relocation", "id", id)
	if err != nil {
		return Relocation{}, fmt.Errorf("catalog: %w", err)
	}
	return normRelocation(r), nil
}

// ListRelocations returns the relocations, oldest first; open keeps those that have not
// ended.
func (c *Catalog) ListRelocations(ctx context.Context, open bool) ([]Relocation, error) {
	q := c.db.WithContext(ctx).Order("created_at, id")
	if open {
		q = q.Where("finished_at IS NULL")
	}
	rs, err := find(q, normRelocation)
	if err != nil {
		return nil, fmt.Errorf("catalog: list relocations: %w", err)
	}
	return rs, nil
}

// RelocationFilter selects and pages relocations.
type RelocationFilter struct {
	// Open keeps the relocations that have not ended.
	Open bool
	// Cursor is the Next of the page before; empty starts at the newest.
	Cursor string
	// Limit is the page size: default DefaultPageSize, at most MaxPageSize.
	Limit int
}

// RelocationPage is one page of a relocation listing.
type RelocationPage struct {
	// Relocations are newest first (createdAt, then id, both descending).
	Relocations []Relocation `json:"relocations"`
	// Next is the cursor of the page after, empty on the last page.
	Next string `json:"next,omitempty"`
}

// ListRelocationsPage returns a page of relocations, newest first. The order is stable and
// the cursor a keyset on (createdAt, id): paging from an empty cursor to the last page
// returns every relocation that existed throughout exactly once, however many are created
// meanwhile. A cursor this catalog did not give out is ErrInvalid.
func (c *Catalog) ListRelocationsPage(ctx context.Context, f RelocationFilter) (RelocationPage, error) {
	limit := pageSize(f.Limit)
	q := c.db.WithContext(ctx).Model(&Relocation{})
	if f.Open {
		q = q.Where("finished_at IS NULL")
	}
	if f.Cursor != "" {
		cur, err := decodeCursor(f.Cursor, cursorRelocations)
		if err != nil {
			return RelocationPage{}, fmt.Errorf("catalog: list relocations: %w", err)
		}
		at := microsTime(cur.micros)
		q = q.Where("(created_at < ? OR (created_at = ? AND id < ?))", at, at, cur.key)
	}
	var rs []Relocation
	if err := q.Order("created_at DESC, id DESC").Limit(limit + 1).Find(&rs).Error; err != nil {
		return RelocationPage{}, fmt.Errorf("catalog: list relocations: %w", err)
	}
	var page RelocationPage
	if len(rs) > limit {
		rs = rs[:limit]
		last := rs[limit-1]
		page.Next = cursor{kind: cursorRelocations, micros: last.CreatedAt.UnixMicro(), key: last.ID}.encode()
	}
	for i := range rs {
		rs[i] = normRelocation(rs[i])
	}
	page.Relocations = rs
	return page, nil
}

// RelocationTx is a relocation being changed in a transaction: its windows can be read and
// written there too.
type RelocationTx struct {
	c  *Catalog
	tx *gorm.DB
	id string
}

// Window returns window seq of the relocation, or ErrNotFound.
func (t RelocationTx) Window(seq int) (RelocationWindow, error) {
	var w RelocationWindow
	err := t.tx.Where("relocation_id = ? AND seq = ?", t.id, seq).Take(&w).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return RelocationWindow{}, fmt.Errorf("relocation %q window %d: %w", t.id, seq, ErrNotFound)
	}
	if err != nil {
		return RelocationWindow{}, fmt.Errorf("relocation %q window %d: %w", t.id, seq, err)
	}
	return normWindow(w), nil
}

// PutWindow creates or replaces a window of the relocation.
func (t RelocationTx) PutWindow(w RelocationWindow) error {
	w.RelocationID = t.id
	w.StartedAt = stamp(w.StartedAt)
	w.FinishedAt = optTime(w.FinishedAt, stamp)
	if w.JobIDs == nil {
		w.JobIDs = []string{}
	}
	var n int64
	if err := t.tx.Model(&RelocationWindow{}).Where("relocation_id = ? AND seq = ?", t.id, w.Seq).Count(&n).Error; err != nil {
		return fmt.Errorf("relocation %q window %d: %w", t.id, w.Seq, err)
	}
	var err error
	if n == 0 {
		err = t.tx.Create(&w).Error
	} else {
		err = t.tx.Model(&RelocationWindow{}).Where("relocation_id = ? AND seq = ?", t.id, w.Seq).
			Select("*").Omit("relocation_id", "seq").Updates(&w).Error
	}
	if err != nil {
		return fmt.Errorf("relocation %q window %d: write: %w", t.id, w.Seq, err)
	}
	return nil
}

// UpdateRelocation locks the relocation of that id, lets fn change it (and its windows,
// through tx) and writes it back, all in one transaction; it returns the relocation as
// written, or ErrNotFound. An error of fn rolls everything back and is returned as it is.
func (c *Catalog) UpdateRelocation(ctx context.Context, id string, fn func(r *Relocation, tx RelocationTx) error) (Relocation, error) {
	var out Relocation
	var fnErr error
	err := c.write(ctx, nil, func(tx *gorm.DB) error {
		fnErr = nil
		r, err := take[Relocation](c.lock(tx), "relocation", "id", id)
		if err != nil {
			return err
		}
		r = normRelocation(r)
		if err := fn(&r, RelocationTx{c: c, tx: tx, id: id}); err != nil {
			fnErr = err
			return err
		}
		r.ID = id
		if r, err = checkRelocation(r); err != nil {
			return err
		}
		r.UpdatedAt = c.stampNow()
		if err := tx.Model(&Relocation{}).Where("id = ?", id).Select("*").Omit("id", "created_at").Updates(&r).Error; err != nil {
			return fmt.Errorf("write relocation %q: %w", id, err)
		}
		out = normRelocation(r)
		return nil
	})
	if fnErr != nil {
		return Relocation{}, fnErr
	}
	if err != nil {
		return Relocation{}, fmt.Errorf("catalog: %w", err)
	}
	return out, nil
}

// ReadRelocation hands fn the relocation of that id and its windows (through tx) in one
// read-only transaction, or returns ErrNotFound; fn's error is returned as it is.
func (c *Catalog) ReadRelocation(ctx context.Context, id string, fn func(r Relocation, tx RelocationTx) error) error {
	var fnErr error
	err := c.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		r, err := take[Relocation](tx, "relocation", "id", id)
		if err != nil {
			return err
		}
		fnErr = fn(normRelocation(r), RelocationTx{c: c, tx: tx, id: id})
		return fnErr
	})
	if fnErr != nil {
		return fnErr
	}
	if err != nil {
		return fmt.Errorf("catalog: %w", err)
	}
	return nil
}

// RelocationWindow returns window seq of a relocation, or ErrNotFound.
func (c *Catalog) RelocationWindow(ctx context.Context, id string, seq int) (RelocationWindow, error) {
	w, err := RelocationTx{c: c, tx: c.db.WithContext(ctx), id: id}.Window(seq)
	if err != nil {
		return RelocationWindow{}, fmt.Errorf("catalog: %w", err)
	}
	return w, nil
}

// RelocationWindows returns the windows of a relocation, by seq, or ErrNotFound when there
// is no such relocation.
func (c *Catalog) RelocationWindows(ctx context.Context, id string) ([]RelocationWindow, error) {
	ws, err := find(c.db.WithContext(ctx).Where("relocation_id = ?", id).Order("seq"), normWindow)
	if err != nil {
		return nil, fmt.Errorf("catalog: windows of relocation %q: %w", id, err)
	}
	if len(ws) == 0 {
		if _, err := c.GetRelocation(ctx, id); err != nil {
			return nil, err
		}
	}
	return ws, nil
}

// DeleteRelocation deletes a relocation that has ended, with its windows; ErrConflict when it
// has not ended.
func (c *Catalog) DeleteRelocation(ctx context.Context, id string) error {
	err := c.write(ctx, nil, func(tx *gorm.DB) error {
		r, err := take[Relocation](c.lock(tx), "relocation", "id", id)
		if err != nil {
			return err
		}
		if r.FinishedAt == nil {
			return &ConflictError{Kind: "relocation", Key: id, What: "phase", Detail: "it is " + r.Phase + "; cancel it first"}
		}
		if err := tx.Where("relocation_id = ?", id).Delete(&RelocationWindow{}).Error; err != nil {
			return err
		}
		return tx.Where("id = ?", id).Delete(&Relocation{}).Error
	})
	if err != nil {
		return fmt.Errorf("catalog: delete relocation %q: %w", id, err)
	}
	return nil
}

func normRelocation(r Relocation) Relocation {
	r.CreatedAt, r.UpdatedAt = r.CreatedAt.UTC(), r.UpdatedAt.UTC()
	r.NextTick = optTime(r.NextTick, time.Time.UTC)
	r.FinishedAt = optTime(r.FinishedAt, time.Time.UTC)
	if len(r.Families) == 0 {
		r.Families = nil
	}
	return r
}

func normWindow(w RelocationWindow) RelocationWindow {
	w.StartedAt = w.StartedAt.UTC()
	w.FinishedAt = optTime(w.FinishedAt, time.Time.UTC)
	if len(w.JobIDs) == 0 {
		w.JobIDs = nil
	}
	return w
}
