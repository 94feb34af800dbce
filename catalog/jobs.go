package catalog

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"gorm.io/gorm"

	"rangecopy/job"
)

// Limits of a job listing.
const (
	// DefaultPageSize is the page size when none is asked for.
	DefaultPageSize = 100
	// MaxPageSize caps the page size.
	MaxPageSize = 1000
)

// checkJob refuses a job that cannot be stored and returns it normalized: the spec and report
// compacted, times stamped, the state pending when unset.
func (c *Catalog) checkJob(j Job) (Job, error) {
	if j.ID == "" || len(j.ID) > 191 {
		return Job{}, fmt.Errorf("%w: job id %q: want 1 to 191 bytes", ErrInvalid, j.ID)
	}
	if j.Spec == "" {
		return Job{}, fmt.Errorf("%w: job %q: no spec", ErrInvalid, j.ID)
	}
	spec, err := j.Spec.compact()
	if err != nil {
		return Job{}, fmt.Errorf("%w: job %q: spec is not JSON: %v", ErrInvalid, j.ID, err)
	}
	j.Spec = spec
	if j.FinalReport, err = j.FinalReport.compact(); err != nil {
		return Job{}, fmt.Errorf("%w: job %q: final report is not JSON: %v", ErrInvalid, j.ID, err)
	}
	if j.State.IsZero() {
		j.State = StateOf(job.StatePending)
	}
	if !j.State.Valid() {
		return Job{}, fmt.Errorf("%w: job %q: unknown state %q", ErrInvalid, j.ID, j.State)
	}
	if k := j.IdempotencyKey; k != nil && (*k == "" || len(*k) > 191) {
		return Job{}, fmt.Errorf("%w: job %q: idempotency key %q: want 1 to 191 bytes", ErrInvalid, j.ID, *k)
	}
	if j.SubmittedAt.IsZero() {
		j.SubmittedAt = c.now()
	}
	j.SubmittedAt = stamp(j.SubmittedAt)
	j.UpdatedAt = c.stampNow()
	return j, nil
}

// CreateJob records a submitted job with a first event, and reports whether it created it.
//
// It is idempotent on the job's id: a job of that id already recorded is returned as it is
// (created false); the id is the registry's, derived from what is copied. When j carries an
// idempotency key that another job holds, that job is returned if its spec is the same, and a
// *ConflictError (ErrConflict) is returned if it is not. Unset State means pending; unset
// SubmittedAt means now.
func (c *Catalog) CreateJob(ctx context.Context, j Job) (Job, bool, error) {
	j, err := c.checkJob(j)
	if err != nil {
		return Job{}, false, fmt.Errorf("catalog: %w", err)
	}
	var out Job
	var created bool
	err = c.write(ctx, retryable, func(tx *gorm.DB) error {
		created = false
		if j.IdempotencyKey != nil {
			var held Job
			err := tx.Where("idempotency_key = ?", *j.IdempotencyKey).Take(&held).Error
			if err == nil {
				if held.Spec != j.Spec {
					return &ConflictError{Kind: "job", Key: held.ID, What: "idempotency key",
						Detail: fmt.Sprintf("key %q was used for job %q with another spec", *j.IdempotencyKey, held.ID)}
				}
				out = normJob(held)
				return nil
			}
			if !errors.Is(err, gorm.ErrRecordNotFound) {
				return fmt.Errorf("find idempotency key: %w", err)
			}
		}
		var old Job
		err := tx.Where("id = ?", j.ID).Take(&old).Error
		if err == nil {
			out = normJob(old)
			return nil
		}
		if !errors.Is(err, gorm.ErrRecordNotFound) {
			return fmt.Errorf("find job: %w", err)
		}
		// Lock the clusters the job names (in name order, so two creations never wait on
		// each other crosswise): a cluster is not deleted while a job naming it is created.
		names := []string{j.SourceCluster, j.TargetCluster}
		slices.Sort(names)
		names = slices.Compact(names)
		var locked []string
		if err := c.lock(tx.Model(&Cluster{})).Where("name IN ?", names).Order("name").Pluck("name", &locked).Error; err != nil {
			return fmt.Errorf("lock clusters: %w", err)
		}
		if err := tx.Create(&j).Error; err != nil {
			return err
		}
		ev := JobEvent{JobID: j.ID, Time: j.UpdatedAt, State: j.State, Message: "submitted"}
		if j.SubmittedBy != "" {
			ev.Message = "submitted by " + j.SubmittedBy
		}
		if err := tx.Create(&ev).Error; err != nil {
			return fmt.Errorf("record the first event: %w", err)
		}
		out, created = j, true
		return nil
	})
	if err != nil {
		return Job{}, false, fmt.Errorf("catalog: create job %q: %w", j.ID, err)
	}
	return out, created, nil
}

// GetJob returns the job of that id, or ErrNotFound.
func (c *Catalog) GetJob(ctx context.Context, id string) (Job, error) {
	var j Job
	err := c.db.WithContext(ctx).Where("id = ?", id).Take(&j).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return Job{}, fmt.Errorf("catalog: job %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return Job{}, fmt.Errorf("catalog: get job %q: %w", id, err)
	}
	return normJob(j), nil
}

// JobFilter selects and pages jobs. Empty fields select everything.
type JobFilter struct {
	// States keeps the jobs in one of these states.
	States []JobState
	// Table keeps the jobs whose source table is this one.
	Table string
	// Cluster keeps the jobs whose source or target cluster is this one.
	Cluster string
	// Cursor is the Next of the page before; empty starts at the newest job.
	Cursor string
	// Limit is the page size: default DefaultPageSize, at most MaxPageSize.
	Limit int
}

// JobPage is one page of a job listing.
type JobPage struct {
	// Jobs are newest first: by submission time, then id, both descending.
	Jobs []Job `json:"jobs"`
	// Next is the cursor of the page after, empty on the last page.
	Next string `json:"next,omitempty"`
}

// ListJobs returns a page of the jobs f selects, newest first (by submittedAt, then id, both
// descending). The order is stable and the cursor is a keyset on (submittedAt, id): paging
// from an empty cursor to the last page returns every job that existed throughout exactly
// once, however many jobs are submitted meanwhile (they sort before the first page).
func (c *Catalog) ListJobs(ctx context.Context, f JobFilter) (JobPage, error) {
	limit := pageSize(f.Limit)
	q := c.db.WithContext(ctx).Model(&Job{})
	for _, s := range f.States {
		if !s.Valid() {
			return JobPage{}, fmt.Errorf("catalog: list jobs: %w: unknown state %q", ErrInvalid, s)
		}
	}
	if len(f.States) > 0 {
		q = q.Where("state IN ?", f.States)
	}
	if f.Table != "" {
		q = q.Where("table_name = ?", f.Table)
	}
	if f.Cluster != "" {
		q = q.Where("(source_cluster = ? OR target_cluster = ?)", f.Cluster, f.Cluster)
	}
	if f.Cursor != "" {
		cur, err := decodeCursor(f.Cursor, cursorJobs)
		if err != nil {
			return JobPage{}, fmt.Errorf("catalog: list jobs: %w", err)
		}
		at := microsTime(cur.micros)
		q = q.Where("(submitted_at < ? OR (submitted_at = ? AND id < ?))", at, at, cur.key)
	}
	var jobs []Job
	if err := q.Order("submitted_at DESC, id DESC").Limit(limit + 1).Find(&jobs).Error; err != nil {
		return JobPage{}, fmt.Errorf("catalog: list jobs: %w", err)
	}
	var page JobPage
	if len(jobs) > limit {
		jobs = jobs[:limit]
		last := jobs[limit-1]
		page.Next = cursor{kind: cursorJobs, micros: last.SubmittedAt.UnixMicro(), key: last.ID}.encode()
	}
	for i := range jobs {
		jobs[i] = normJob(jobs[i])
	}
	page.Jobs = jobs
	return page, nil
}

// JobUpdate is a change to a job: its new state, error and report, and the event's message.
// Nil fields are left as they are.
type JobUpdate struct {
	// State is the job's new state; the zero value keeps the state.
	State JobState
	// LastError replaces the last error.
	LastError *string
	// FinalReport replaces the final report (JSON).
	FinalReport *JSONText
	// Message is the event's message.
	Message string
}

// UpdateJob applies u to the job of that id and appends the event to its history in the same
// transaction; it returns the job as changed, or ErrNotFound.
func (c *Catalog) UpdateJob(ctx context.Context, id string, u JobUpdate) (Job, error) {
	if !u.State.IsZero() && !u.State.Valid() {
		return Job{}, fmt.Errorf("catalog: update job %q: %w: unknown state %q", id, ErrInvalid, u.State)
	}
	var report JSONText
	if u.FinalReport != nil {
		var err error
		if report, err = u.FinalReport.compact(); err != nil {
			return Job{}, fmt.Errorf("catalog: update job %q: %w: final report is not JSON: %v", id, ErrInvalid, err)
		}
	}
	var out Job
	err := c.write(ctx, nil, func(tx *gorm.DB) error {
		var j Job
		err := c.lock(tx).Where("id = ?", id).Take(&j).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return fmt.Errorf("job %q: %w", id, ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("update job %q: %w", id, err)
		}
		now := c.stampNow()
		set := map[string]any{"updated_at": now}
		if !u.State.IsZero() {
			j.State = u.State
			set["state"] = u.State
		}
		if u.LastError != nil {
			j.LastError = *u.LastError
			set["last_error"] = *u.LastError
		}
		if u.FinalReport != nil {
			j.FinalReport = report
			set["final_report"] = report
		}
		j.UpdatedAt = now
		if err := tx.Model(&Job{}).Where("id = ?", id).Updates(set).Error; err != nil {
			return fmt.Errorf("update job %q: %w", id, err)
		}
		if err := tx.Create(&JobEvent{JobID: id, Time: now, State: j.State, Message: u.Message}).Error; err != nil {
			return fmt.Errorf("update job %q: record the event: %w", id, err)
		}
		out = normJob(j)
		return nil
	})
	if err != nil {
		return Job{}, fmt.Errorf("catalog: %w", err)
	}
	return out, nil
}

// JobEvents returns up to limit events of the job's history after the event of id after (0:
// from the first), oldest first, or ErrNotFound when there is no such job.
func (c *Catalog) JobEvents(ctx context.Context, jobID string, after int64, limit int) ([]JobEvent, error) {
	var evs []JobEvent
	err := c.db.WithContext(ctx).Where("job_id = ? AND id > ?", jobID, after).Order("id").Limit(pageSize(limit)).Find(&evs).Error
	if err != nil {
		return nil, fmt.Errorf("catalog: events of job %q: %w", jobID, err)
	}
	if len(evs) == 0 {
		if _, err := c.GetJob(ctx, jobID); err != nil {
			return nil, err
		}
	}
	for i := range evs {
		evs[i].Time = evs[i].Time.UTC()
	}
	return evs, nil
}

func pageSize(n int) int {
	if n <= 0 {
		return DefaultPageSize
	}
	return min(n, MaxPageSize)
}

// normJob puts times read back in UTC.
func normJob(j Job) Job {
	j.SubmittedAt, j.UpdatedAt = j.SubmittedAt.UTC(), j.UpdatedAt.UTC()
	return j
}

// JobByIdempotencyKey returns the job submitted with that Idempotency-Key, or ErrNotFound.
func (c *Catalog) JobByIdempotencyKey(ctx context.Context, key string) (Job, error) {
	var j Job
	err := c.db.WithContext(ctx).Where("idempotency_key = ?", key).Take(&j).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return Job{}, fmt.Errorf("catalog: idempotency key %q: %w", key, ErrNotFound)
	}
	if err != nil {
		return Job{}, fmt.Errorf("catalog: find idempotency key %q: %w", key, err)
	}
	return normJob(j), nil
}

// JobsByID returns the jobs of those ids that the catalog holds, by id.
func (c *Catalog) JobsByID(ctx context.Context, ids []string) (map[string]Job, error) {
	out := make(map[string]Job, len(ids))
	for chunk := range slices.Chunk(ids, 500) {
		var jobs []Job
		if err := c.db.WithContext(ctx).Where("id IN ?", chunk).Find(&jobs).Error; err != nil {
			return nil, fmt.Errorf("catalog: jobs by id: %w", err)
		}
		for _, j := range jobs {
			out[j.ID] = normJob(j)
		}
	}
	return out, nil
}

// OpenJobs returns every job that has not ended, oldest first.
func (c *Catalog) OpenJobs(ctx context.Context) ([]Job, error) {
	var jobs []Job
	if err := c.db.WithContext(ctx).Where("state NOT IN ?", finalStates()).Order("submitted_at, id").Find(&jobs).Error; err != nil {
		return nil, fmt.Errorf("catalog: open jobs: %w", err)
	}
	for i := range jobs {
		jobs[i] = normJob(jobs[i])
	}
	return jobs, nil
}

// AttachSubmission gives a job recorded without its submission (adopted from the registry by
// a reconcile that ran between the registry's record and the catalog's) what the submitter
// said: its spec, clusters, submitter and idempotency key. It changes only a row whose
// SubmittedBy is adoptedBy, and returns the job as it then is; another row is returned as it
// is. ErrNotFound when there is no such job; a key another job holds is a *ConflictError.
func (c *Catalog) AttachSubmission(ctx context.Context, j Job, adoptedBy string) (Job, error) {
	j, err := c.checkJob(j)
	if err != nil {
		return Job{}, fmt.Errorf("catalog: %w", err)
	}
	var out Job
	err = c.write(ctx, nil, func(tx *gorm.DB) error {
		var row Job
		err := c.lock(tx).Where("id = ?", j.ID).Take(&row).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return fmt.Errorf("job %q: %w", j.ID, ErrNotFound)
		}
		if err != nil {
			return err
		}
		if row.SubmittedBy != adoptedBy {
			out = normJob(row)
			return nil
		}
		set := map[string]any{"spec": j.Spec, "source_cluster": j.SourceCluster, "target_cluster": j.TargetCluster,
			"submitted_by": j.SubmittedBy, "updated_at": j.UpdatedAt}
		if j.IdempotencyKey != nil {
			set["idempotency_key"] = *j.IdempotencyKey
		}
		err = tx.Model(&Job{}).Where("id = ?", j.ID).Updates(set).Error
		if errors.Is(err, gorm.ErrDuplicatedKey) {
			return &ConflictError{Kind: "job", Key: j.ID, What: "idempotency key", Detail: "the key is held by another job"}
		}
		if err != nil {
			return err
		}
		row.Spec, row.SourceCluster, row.TargetCluster, row.SubmittedBy, row.UpdatedAt = j.Spec, j.SourceCluster, j.TargetCluster, j.SubmittedBy, j.UpdatedAt
		if j.IdempotencyKey != nil {
			row.IdempotencyKey = j.IdempotencyKey
		}
		out = normJob(row)
		return nil
	})
	if err != nil {
		return Job{}, fmt.Errorf("catalog: attach the submission of job %q: %w", j.ID, err)
	}
	return out, nil
}
