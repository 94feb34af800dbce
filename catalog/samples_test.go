package catalog

import (
	"errors"
	"testing"
	"time"
)

// TestJobSamples records samples of two jobs, past the bound of one, reads them back oldest
// first after reopening the catalog, and finds them gone with their job.
func TestJobSamples(t *testing.T) {
	eachDB(t, func(t *testing.T, url string) {
		ctx := testContext(t)
		c := openTest(t, url, Options{})
		for _, n := range []string{"dc1", "dc2"} {
			if _, err := c.CreateCluster(ctx, Cluster{Name: n, ZKQuorum: "zk:2181"}); err != nil {
				t.Fatal(err)
			}
		}
		a, b := "copy-ns.t1-00000000000000aa", "copy-ns.t1-00000000000000bb"
		for _, id := range []string{a, b} {
			if _, _, err := c.CreateJob(ctx, testJob(id)); err != nil {
				t.Fatal(err)
			}
		}
		if ss, err := c.JobSamples(ctx, a); err != nil || len(ss) != 0 {
			t.Fatalf("JobSamples of a job never sampled = %v, %v; want none", ss, err)
		}
		if _, err := c.JobSamples(ctx, "copy-nope"); !errors.Is(err, ErrNotFound) {
			t.Errorf("JobSamples of an unknown job: %v; want ErrNotFound", err)
		}
		if err := c.AppendJobSamples(ctx, []JobSample{{JobID: "copy-nope", BytesDone: 1}}); !errors.Is(err, ErrNotFound) {
			t.Errorf("a sample of an unknown job: %v; want ErrNotFound", err)
		}

		// Job a gets MaxJobSamples+5 samples in batches, the last batch out of time order;
		// job b three. Times keep microseconds, nanoseconds are dropped.
		t0 := time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.FixedZone("x", 3600))
		at := func(i int) time.Time { return t0.Add(time.Duration(i) * 5 * time.Second) }
		total := MaxJobSamples + 5
		var batch []JobSample
		for i := range total - 2 {
			batch = append(batch, JobSample{JobID: a, Time: at(i), BytesDone: int64(i) * 1000})
			if len(batch) == 250 {
				if err := c.AppendJobSamples(ctx, batch); err != nil {
					t.Fatal(err)
				}
				batch = nil
			}
		}
		batch = append(batch, JobSample{JobID: a, Time: at(total - 1), BytesDone: int64(total-1) * 1000},
			JobSample{JobID: a, Time: at(total - 2), BytesDone: int64(total-2) * 1000})
		for i := range 3 {
			batch = append(batch, JobSample{JobID: b, Time: at(i), BytesDone: int64(i)})
		}
		if err := c.AppendJobSamples(ctx, batch); err != nil {
			t.Fatal(err)
		}
		c.Close()

		c = openTest(t, url, Options{})
		ss, err := c.JobSamples(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		if len(ss) != MaxJobSamples {
			t.Fatalf("job a keeps %d samples, want %d", len(ss), MaxJobSamples)
		}
		for k, s := range ss {
			i := total - MaxJobSamples + k
			if s.JobID != a || !s.Time.Equal(at(i).Truncate(time.Microsecond)) || s.Time.Location() != time.UTC || s.BytesDone != int64(i)*1000 {
				t.Fatalf("sample %d of a: %+v; want the one of %s, %d bytes, in UTC", k, s, at(i).UTC(), i*1000)
			}
		}
		var stored int64
		if err := c.db.WithContext(ctx).Model(&JobSample{}).Where("job_id = ?", a).Count(&stored).Error; err != nil || stored != MaxJobSamples {
			t.Errorf("job a has %d rows, %v; want the older ones deleted", stored, err)
		}
		if ss, err := c.JobSamples(ctx, b); err != nil || len(ss) != 3 || ss[2].BytesDone != 2 {
			t.Errorf("job b: %+v, %v", ss, err)
		}

		// Deleted with their job.
		if err := c.db.WithContext(ctx).Exec("DELETE FROM job_events WHERE job_id = ?", b).Error; err != nil {
			t.Fatal(err)
		}
		if err := c.db.WithContext(ctx).Exec("DELETE FROM jobs WHERE id = ?", b).Error; err != nil {
			t.Fatal(err)
		}
		if err := c.db.WithContext(ctx).Model(&JobSample{}).Where("job_id = ?", b).Count(&stored).Error; err != nil || stored != 0 {
			t.Errorf("after deleting job b, %d of its samples are left (%v)", stored, err)
		}
	})
}
