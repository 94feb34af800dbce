package catalog

import (
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The catalogs under testdata/release-163ebf0-*.sql were written by the release before goose
// (commit 163ebf0, schema version 4 in schema_migrations) and dumped: sqlite3 .dump,
// mysqldump, pg_dump --inserts. Each holds one of everything: clusters dc1 and dc2, job
// copy-release (done, with its events, a sample and an idempotency key), relocation
// rel_0123456789abcdef with its full-copy window, verification ver_0123456789abcdef (passed),
// an admin token and one audit entry, stamped by newClock.
var releaseDumps = map[string]struct {
	file, tokenID, secret string
}{
	"sqlite":   {"release-163ebf0-sqlite.sql", "tok_3874d51d92815c3f", "rc_gzabqoalb445y2jzghybfe2xshywxpfz2qodvyoket2o4lkimb3q"},
	"mariadb":  {"release-163ebf0-mariadb.sql", "tok_370abb27eafe7e61", "rc_kbccixbdpj2xatqkj6oidllorpojt65cfyskakamdhsa52gieywa"},
	"postgres": {"release-163ebf0-postgres.sql", "tok_0312d7c4edccdb4d", "rc_lv4mcuq3jh6sju5hxqppb7bmvqmj7iw7lpjdktkhf43g5exfs4ga"},
}

// loadDump runs the SQL dump in file against the empty database of the catalog URL url.
func loadDump(t *testing.T, url, file string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	tg, err := parseURL(url, 0)
	if err != nil {
		t.Fatal(err)
	}
	script := string(b)
	driver, dsn := "sqlite", tg.dsn
	switch tg.dialect {
	case MySQL:
		driver, dsn = "mysql", dsn+"&multiStatements=true"
	case Postgres:
		// psql's meta-commands (\restrict) are not SQL.
		var lines []string
		for _, l := range strings.Split(script, "\n") {
			if !strings.HasPrefix(l, `\`) {
				lines = append(lines, l)
			}
		}
		driver, script = "pgx", strings.Join(lines, "\n")
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(testContext(t), script); err != nil {
		t.Fatalf("load %s: %v", file, err)
	}
}

// A catalog written by the release before goose opens, upgrades and carries on, on each
// database: every row is there and the catalog takes new ones.
func TestUpgradeFromRelease(t *testing.T) {
	eachDB(t, func(t *testing.T, url string) {
		ctx := testContext(t)
		dump := releaseDumps[filepath.Base(t.Name())]
		loadDump(t, url, dump.file)
		c := openTest(t, url, Options{})
		t0 := newClock().Now()

		// The upgrade: goose ran every version (1 to 4 again, as no-ops) and the fence
		// joined the release's rows in schema_migrations.
		if got, want := appliedVersions(t, c), upTo(latestVersion(t)); !slices.Equal(got, want) {
			t.Errorf("goose_db_version lists %v, want %v", got, want)
		}
		var old []int64
		if err := c.db.WithContext(ctx).Raw("SELECT version FROM schema_migrations ORDER BY version").Scan(&old).Error; err != nil || !slices.Equal(old, []int64{1, 2, 3, 4, 5}) {
			t.Errorf("schema_migrations = %v, %v; want the release's 1 to 4 and the fence 5", old, err)
		}

		cls, err := c.ListClusters(ctx)
		if err != nil || len(cls) != 2 || cls[0].Name != "dc1" || cls[1].Name != "dc2" {
			t.Fatalf("ListClusters = %+v, %v", cls, err)
		}
		if dc1 := cls[0]; dc1.ZKQuorum != "zk1:2181,zk2:2181" || dc1.SiteFiles["hbase-site.xml"] != "<configuration/>\n" || !dc1.CreatedAt.Equal(t0) {
			t.Errorf("dc1 = %+v", dc1)
		}

		j, err := c.GetJob(ctx, "copy-release")
		if err != nil {
			t.Fatal(err)
		}
		if j.State.String() != "done" || string(j.FinalReport) != `{"bytes":8192,"files":3}` || !j.SubmittedAt.Equal(t0.Add(time.Second)) ||
			j.IdempotencyKey == nil || *j.IdempotencyKey != "key-1" {
			t.Errorf("job = %+v", j)
		}
		if k, err := c.JobByIdempotencyKey(ctx, "key-1"); err != nil || k.ID != j.ID {
			t.Errorf("JobByIdempotencyKey = %+v, %v", k, err)
		}
		evs, err := c.JobEvents(ctx, j.ID, 0, 10)
		if err != nil || len(evs) != 3 || !strings.HasPrefix(evs[0].Message, "submitted") || evs[2].Message != "done" {
			t.Errorf("JobEvents = %+v, %v", evs, err)
		}
		if ss, err := c.JobSamples(ctx, j.ID); err != nil || len(ss) != 1 || ss[0].BytesDone != 4096 {
			t.Errorf("JobSamples = %+v, %v", ss, err)
		}

		r, err := c.GetRelocation(ctx, "rel_0123456789abcdef")
		if err != nil {
			t.Fatal(err)
		}
		if r.Phase != "catching-up" || len(r.Tables) != 1 || r.Tables[0].Target != "ns:t1_new" || r.NextTick == nil || r.LastSeq != 1 {
			t.Errorf("relocation = %+v", r)
		}
		ws, err := c.RelocationWindows(ctx, r.ID)
		if err != nil || len(ws) != 1 || ws[0].Kind != "full" || !slices.Equal(ws[0].JobIDs, []string{"copy-release"}) || ws[0].FinishedAt == nil {
			t.Errorf("RelocationWindows = %+v, %v", ws, err)
		}

		v, err := c.GetVerification(ctx, "ver_0123456789abcdef")
		if err != nil || v.State != VerificationPassed || string(v.Report) != `{"batches":4,"mismatched":0}` || v.FinishedAt == nil {
			t.Errorf("verification = %+v, %v", v, err)
		}

		tok, err := c.Authenticate(ctx, dump.secret)
		if err != nil || tok.ID != dump.tokenID || tok.Role != RoleAdmin {
			t.Errorf("Authenticate = %+v, %v", tok, err)
		}
		page, err := c.ListAudit(ctx, "", "", 10)
		if err != nil || len(page.Entries) != 1 || page.Entries[0].Path != "/v1/jobs" {
			t.Errorf("ListAudit = %+v, %v", page, err)
		}

		// And it carries on: new rows beside the old ones (the serial columns continue).
		j2 := testJob("copy-after")
		if _, _, err := c.CreateJob(ctx, j2); err != nil {
			t.Fatalf("a job after the upgrade: %v", err)
		}
		if evs, err := c.JobEvents(ctx, j2.ID, 0, 10); err != nil || len(evs) != 1 || evs[0].ID <= 3 {
			t.Errorf("the new job's events = %+v, %v", evs, err)
		}
		if err := c.AppendJobSamples(ctx, []JobSample{{JobID: j.ID, Time: c.stampNow(), BytesDone: 8192}}); err != nil {
			t.Errorf("a sample after the upgrade: %v", err)
		}
		if _, err := c.UpdateRelocation(ctx, r.ID, func(r *Relocation, tx RelocationTx) error {
			r.Phase = "cutting-over"
			return nil
		}); err != nil {
			t.Errorf("UpdateRelocation: %v", err)
		}
		if _, err := c.CreateVerification(ctx, Verification{ID: NewVerificationID(), Spec: JSONText(`{}`), Runner: "server-2", CreatedBy: "ops"}); err != nil {
			t.Errorf("a verification after the upgrade: %v", err)
		}
		if _, err := c.RevokeToken(ctx, dump.tokenID); err != nil {
			t.Errorf("RevokeToken: %v", err)
		}
		if _, err := c.AppendAudit(ctx, AuditEntry{Time: c.stampNow(), Method: "DELETE", Path: "/v1/tokens/" + dump.tokenID, Status: 200}); err != nil {
			t.Errorf("an audit entry after the upgrade: %v", err)
		}
	})
}
