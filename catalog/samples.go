package catalog

import (
	"context"
	"fmt"
	"slices"

	"gorm.io/gorm"
)

// MaxJobSamples bounds the samples a job keeps: an hour at the dashboard's one every 5 s.
// AppendJobSamples deletes the older ones.
const MaxJobSamples = 720

// AppendJobSamples records samples of one or more jobs, in one transaction, and deletes each
// of those jobs' samples past its newest MaxJobSamples. An unset Time is now. A sample of a
// job the catalog does not hold fails the whole call (ErrNotFound).
func (c *Catalog) AppendJobSamples(ctx context.Context, ss []JobSample) error {
	if len(ss) == 0 {
		return nil
	}
	rows := make([]JobSample, len(ss))
	var jobs []string
	for i, s := range ss {
		if s.JobID == "" {
			return fmt.Errorf("catalog: append job samples: %w: sample %d names no job", ErrInvalid, i)
		}
		if s.Time.IsZero() {
			s.Time = c.now()
		}
		rows[i] = JobSample{JobID: s.JobID, Time: stamp(s.Time), BytesDone: s.BytesDone}
		jobs = append(jobs, s.JobID)
	}
	slices.Sort(jobs)
	jobs = slices.Compact(jobs)
	err := c.write(ctx, nil, func(tx *gorm.DB) error {
		var known int64
		if err := tx.Model(&Job{}).Where("id IN ?", jobs).Count(&known).Error; err != nil {
			return fmt.Errorf("find the jobs: %w", err)
		}
		if known != int64(len(jobs)) {
			return fmt.Errorf("%w: %d of the %d jobs sampled are not in the catalog", ErrNotFound, int64(len(jobs))-known, len(jobs))
		}
		if err := tx.CreateInBatches(rows, 200).Error; err != nil {
			return fmt.Errorf("insert: %w", err)
		}
		for _, id := range jobs {
			if err := trimJobSamples(tx, id, MaxJobSamples); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("catalog: append %d samples of %d jobs: %w", len(ss), len(jobs), err)
	}
	return nil
}

// trimJobSamples deletes a job's samples past its newest keep (by time, then id).
func trimJobSamples(tx *gorm.DB, id string, keep int) error {
	var cut []JobSample
	if err := tx.Where("job_id = ?", id).Order("time DESC, id DESC").Offset(keep).Limit(1).Find(&cut).Error; err != nil {
		return fmt.Errorf("job %q: find its oldest sample to keep: %w", id, err)
	}
	if len(cut) == 0 {
		return nil
	}
	at := stamp(cut[0].Time)
	err := tx.Where("job_id = ? AND (time < ? OR (time = ? AND id <= ?))", id, at, at, cut[0].ID).Delete(&JobSample{}).Error
	if err != nil {
		return fmt.Errorf("job %q: delete its old samples: %w", id, err)
	}
	return nil
}

// JobSamples returns a job's samples, oldest first (at most MaxJobSamples): none for a job
// never sampled, and ErrNotFound for a job the catalog does not hold.
func (c *Catalog) JobSamples(ctx context.Context, jobID string) ([]JobSample, error) {
	var ss []JobSample
	err := c.db.WithContext(ctx).Where("job_id = ?", jobID).Order("time DESC, id DESC").Limit(MaxJobSamples).Find(&ss).Error
	if err != nil {
		return nil, fmt.Errorf("catalog: samples of job %q: %w", jobID, err)
	}
	if len(ss) == 0 {
		if _, err := c.GetJob(ctx, jobID); err != nil {
			return nil, err
		}
	}
	slices.Reverse(ss)
	for i := range ss {
		ss[i].Time = ss[i].Time.UTC()
	}
	return ss, nil
}
