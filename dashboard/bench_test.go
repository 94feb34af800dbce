package dashboard

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// benchPage renders one page for a signed-in viewer, b.N times, through the handler.
func benchPage(b *testing.B, src *memSource, path, want string) {
	d, err := New(Config{Source: src, Version: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	id := src.jobs[0].ID
	t0 := time.Now().Add(-time.Hour)
	var ss []JobSample
	for i := range 720 { // an hour, as the catalog keeps
		ss = append(ss, JobSample{Job: id, Sample: Sample{At: t0.Add(time.Duration(i) * 5 * time.Second), BytesDone: int64(i) * 100 << 20}})
	}
	if err := src.RecordSamples(b.Context(), ss); err != nil {
		b.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodGet, path, nil)
	sid, _, err := d.sessions.SignIn(b.Context(), "sv")
	if err != nil {
		b.Fatal(err)
	}
	req.AddCookie(&http.Cookie{Name: sessionCookie, Value: sid})
	rec := httptest.NewRecorder()
	d.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), want) {
		b.Fatalf("%s: %d, lacks %q", path, rec.Code, want)
	}
	b.SetBytes(int64(rec.Body.Len()))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		rec := httptest.NewRecorder()
		d.ServeHTTP(rec, req)
	}
}

// BenchmarkJobsPage renders the jobs list of 1,000 jobs: the default page (100) and every
// job on one page (the largest page the API serves).
func BenchmarkJobsPage(b *testing.B) {
	src := fakeSource(1000, 0)
	b.Run("page=100", func(b *testing.B) { benchPage(b, src, "/jobs", `rel="next"`) })
	b.Run("all=1000", func(b *testing.B) { benchPageAll(b, src) })
}

// benchPageAll renders the 1,000 jobs on one page, as a page size of 1,000 would.
func benchPageAll(b *testing.B, src *memSource) {
	benchPage(b, &memSource{tokens: src.tokens, jobs: src.jobs, tasks: src.tasks, workers: src.workers, pageAll: true}, "/jobs", "copy-t0999-")
}

// BenchmarkJobPage renders a job of 10,000 tasks with an hour of throughput samples: its
// counts, its chart and a page (50) of its running tasks.
func BenchmarkJobPage(b *testing.B) {
	src := fakeSource(10, 10000)
	benchPage(b, src, "/jobs/"+src.jobs[0].ID, `rel="next"`)
}
