package server

import (
	"context"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"rangecopy/api"
	"rangecopy/catalog"
	"rangecopy/rowkey"
	"rangecopy/testenv"
	"rangecopy/testenv/copytest"
)

// waitVerification polls GET /verifications/{id} until it has ended, for at most d.
func (r *rig) waitVerification(id string, d time.Duration) api.VerificationOutput {
	r.t.Helper()
	deadline := time.Now().Add(d)
	for {
		a := r.do(r.viewer, http.MethodGet, api.APIPrefix+"/verifications/"+id, nil)
		if a.status != http.StatusOK {
			r.t.Fatalf("get verification %s: %d %s", id, a.status, a.body)
		}
		var v api.VerificationOutput
		a.decode(r.t, &v)
		if v.State != "running" {
			return v
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("verification %s still running after %s", id, d)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// createVerification posts a verification and checks the 201.
func (r *rig) createVerification(body map[string]any) api.VerificationOutput {
	r.t.Helper()
	a := r.do(r.oper, http.MethodPost, api.APIPrefix+"/verifications", body)
	if a.status != http.StatusCreated {
		r.t.Fatalf("create verification %v: %d %s", body, a.status, a.body)
	}
	var v api.VerificationOutput
	a.decode(r.t, &v)
	if v.ID == "" || v.State != "running" || v.CreatedBy != "test operator" || v.Runner != r.s.cfg.ID {
		r.t.Fatalf("created verification: %+v", v)
	}
	return v
}

func TestServerVerifications(t *testing.T) {
	env := testenv.Get(t)
	r := newRig(t, env, 2)
	r.registerClusters(env)
	table := copytest.CreateSource(t, env, "srvver")
	rows := copytest.BinaryRows(120)
	copytest.WriteRounds(t, env.Source, table, rows, 2, time.Now().UnixMilli()-100_000, true)
	copytest.DropTargetLater(t, env, table)

	// Bad input: a 400 naming the field, nothing created.
	for _, c := range []struct{ body, field string }{
		{`{"source":"src","target":"dst","table":"` + table + `","startRow":"b","stopRow":"a"}`, "stopRow"},
		{`{"source":"nope","target":"dst","table":"` + table + `"}`, "source"},
		{`{"source":"src","target":"nope","table":"` + table + `"}`, "target"},
		{`{"source":"src","target":"dst"}`, "table"},
		{`{"source":"src","target":"dst","table":"` + table + `","mode":"cooked"}`, "mode"},
		{`{"source":"src","target":"dst","table":"` + table + `","bandwidth":"fast"}`, "bandwidth"},
		{`{"source":"src","target":"dst","table":"` + table + `","maxDiffs":0}`, "maxDiffs"},
		{`{"source":"src","target":"dst","table":"` + table + `","startTime":10,"endTime":5}`, "endTime"},
		{`{"source":"src","target":"dst","table":"` + table + `","families":["cf1","cf1"]}`, "families"},
		{`{"source":"src","target":"dst","table":"` + table + `","colour":"blue"}`, "colour"},
	} {
		a := r.do(r.oper, http.MethodPost, api.APIPrefix+"/verifications", c.body)
		if a.status != http.StatusBadRequest || !strings.Contains(string(a.body), c.field) ||
			a.header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("create %s: %d %s; want a 400 problem naming %s", c.body, a.status, a.body, c.field)
		}
	}
	if a := r.do(r.viewer, http.MethodPost, api.APIPrefix+"/verifications", map[string]any{"source": "src", "target": "dst", "table": table}); a.status != http.StatusForbidden {
		t.Errorf("a viewer creates a verification: %d %s; want 403", a.status, a.body)
	}
	if page, _ := r.s.Catalog().ListVerifications(t.Context(), catalog.VerificationFilter{}); len(page.Verifications) != 0 {
		t.Fatalf("refused requests created verifications: %+v", page.Verifications)
	}

	// Copy the table, then verify it: equal.
	a := r.do(r.oper, http.MethodPost, api.APIPrefix+"/jobs", map[string]any{"source": "src", "target": "dst", "table": table, "createTable": true})
	if a.status != http.StatusCreated {
		t.Fatalf("submit: %d %s", a.status, a.body)
	}
	var j api.JobOut
	a.decode(t, &j)
	r.waitJob(j.ID, 3*time.Minute, "done", func(v api.JobOut) bool { return v.State == "done" })
	cells := copytest.AssertSame(t, env, table, table, nil, nil)

	// The copy cut at the source's regions copied whole the files apart in
	// time: their batches match by the files' checksums, unread (readAll
	// below reads every one).
	proven := r.createVerification(map[string]any{"source": "src", "target": "dst", "table": table})
	pv := r.waitVerification(proven.ID, 3*time.Minute)
	if pv.State != "passed" || pv.Report == nil || pv.Report.Batches == 0 || pv.Report.BatchesProven == 0 || pv.Request.ReadAll {
		t.Fatalf("verification of the copy by checksums: %+v", pv.Report)
	}
	first := r.createVerification(map[string]any{"source": "src", "target": "dst", "table": table, "mode": "raw", "readAll": true})
	v := r.waitVerification(first.ID, 3*time.Minute)
	if v.State != "passed" || v.Report == nil || v.FinishedAt == nil || v.Error != "" {
		t.Fatalf("verification of the copy: %+v", v)
	}
	rep := v.Report
	if rep.SourceCells != int64(cells) || rep.TargetCells != int64(cells) || rep.SourceRows == 0 || rep.SourceRows != rep.TargetRows ||
		rep.Batches == 0 || rep.BatchesMatched != rep.Batches || rep.BatchesMismatched != 0 || rep.DifferenceCount != 0 ||
		len(rep.Differences) != 0 || rep.Mode != "raw" || rep.SourceTable != table || rep.BytesRead == 0 {
		t.Fatalf("report of the copy (%d raw cells each side): %+v", cells, rep)
	}
	if v.Request.Mode != "raw" || v.Request.MaxDiffs != 100 || v.Request.Table != table || !v.Request.ReadAll || rep.BatchesProven != 0 ||
		rep.BytesRead <= pv.Report.BytesRead {
		t.Errorf("stored request: %+v", v.Request)
	}

	// Edit the target: the verification fails and lists the cell.
	row := rows[6] // 0x80 .. 0xff
	ts := time.Now().UnixMilli()
	if err := env.Target.Mutate(t.Context(), table, []testenv.Cell{{Row: row, Family: []byte("cf1"), Qualifier: []byte("edited\x00"),
		Timestamp: ts, Type: "Put", Value: []byte("v\xfe")}}); err != nil {
		t.Fatal(err)
	}
	second := r.createVerification(map[string]any{"source": "src", "target": "dst", "table": table, "maxDiffs": 5})
	v = r.waitVerification(second.ID, 3*time.Minute)
	if v.State != "failed" || v.Report == nil {
		t.Fatalf("verification of the edited target: %+v", v)
	}
	rep = v.Report
	if rep.DifferenceCount != 1 || len(rep.Differences) != 1 || rep.BatchesMismatched != 1 || rep.BatchesMatched != rep.Batches-1 ||
		rep.TargetCells != rep.SourceCells+1 || len(rep.MismatchedRanges) != 1 || rep.Mode != "visible" {
		t.Fatalf("report of the edited target: %+v", rep)
	}
	d := rep.Differences[0]
	if d.Kind != "extra on target" || d.Row != rowkey.Format(row) || d.Family != "cf1" || d.Qualifier != `edited\x00` ||
		d.Timestamp != ts || d.Type != "Put" || d.TargetValue == nil || *d.TargetValue != `v\xFE` || d.SourceValue != nil {
		t.Fatalf("difference listed: %+v (row want %s)", d, rowkey.Format(row))
	}

	// Newest first, one a page.
	var ids []string
	cursor := ""
	for range 5 {
		path := api.APIPrefix + "/verifications?limit=1"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		a := r.do(r.viewer, http.MethodGet, path, nil)
		if a.status != http.StatusOK {
			t.Fatalf("list: %d %s", a.status, a.body)
		}
		var page struct {
			Verifications []api.VerificationOutput `json:"verifications"`
			Next          string                   `json:"next"`
		}
		a.decode(t, &page)
		for _, v := range page.Verifications {
			ids = append(ids, v.ID)
		}
		if cursor = page.Next; cursor == "" {
			break
		}
	}
	if len(ids) != 3 || ids[0] != second.ID || ids[1] != first.ID || ids[2] != proven.ID {
		t.Errorf("listed %v, want [%s %s %s]", ids, second.ID, first.ID, proven.ID)
	}
	if a := r.do(r.viewer, http.MethodGet, api.APIPrefix+"/verifications?cursor=bogus", nil); a.status != http.StatusBadRequest {
		t.Errorf("a bad cursor: %d %s; want 400", a.status, a.body)
	}
	if a := r.do(r.viewer, http.MethodGet, api.APIPrefix+"/verifications/ver_0000000000000000", nil); a.status != http.StatusNotFound {
		t.Errorf("an unknown verification: %d %s; want 404", a.status, a.body)
	}
}

// A verification running when its server died is marked error when that server starts again.
func TestServerVerificationInterrupted(t *testing.T) {
	env := testenv.Get(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	s, err := New(ctx, Config{Listen: "127.0.0.1:0", Catalog: "sqlite://" + filepath.Join(dir, "catalog.db"),
		ZK: []string{env.Target.ZKQuorum}, ZKRoot: "/" + testenv.UniqueName(t, "srv"), SessionTimeout: 6 * time.Second,
		Poll: 500 * time.Millisecond, Reconcile: 500 * time.Millisecond, Logger: log, Version: "test", ID: "srv-verify-restart"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// As the server of this id left it when it died: running, and its heartbeat fresh.
	left, err := s.Catalog().CreateVerification(ctx, catalog.Verification{ID: catalog.NewVerificationID(),
		Spec: `{"source":"src","target":"dst","table":"t"}`, Runner: "srv-verify-restart", CreatedBy: "ops"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := s.Catalog().CreateVerification(ctx, catalog.Verification{ID: catalog.NewVerificationID(),
		Spec: `{"source":"src","target":"dst","table":"t"}`, Runner: "srv-alive", CreatedBy: "ops"})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := s.Run(ctx); err != nil {
			t.Errorf("server: %v", err)
		}
	}()
	defer wg.Wait()
	defer cancel()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		v, err := s.Catalog().GetVerification(ctx, left.ID)
		if err != nil {
			t.Fatal(err)
		}
		if v.State == catalog.VerificationError {
			if !strings.Contains(v.Error, "interrupted") || v.FinishedAt == nil {
				t.Fatalf("interrupted verification: %+v", v)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dead server's verification is still %s", v.State)
		}
	}
	// Another server's, beating recently, is left running.
	if v, _ := s.Catalog().GetVerification(ctx, other.ID); v.State != catalog.VerificationRunning {
		t.Fatalf("a live server's verification was interrupted: %+v", v)
	}
}
