package catalog

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
)

// migrationVersions returns the versions of the migration files of dialect d, ascending.
func migrationVersions(t *testing.T, d Dialect) []int64 {
	t.Helper()
	files, err := migrationsOf(d)
	if err != nil {
		t.Fatal(err)
	}
	names, err := fs.Glob(files, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	var vs []int64
	for _, n := range names {
		num, _, _ := strings.Cut(n, "_")
		v, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			t.Fatalf("migration file %s: no version: %v", n, err)
		}
		vs = append(vs, v)
	}
	slices.Sort(vs)
	return vs
}

// latestVersion is the schema version this binary migrates a catalog to.
func latestVersion(t *testing.T) int64 {
	t.Helper()
	vs := migrationVersions(t, SQLite)
	return vs[len(vs)-1]
}

// appliedVersions returns the versions goose recorded as applied in c, in the order applied
// (version 0 is goose's own first row).
func appliedVersions(t *testing.T, c *Catalog) []int64 {
	t.Helper()
	var rows []struct {
		VersionID int64
		IsApplied bool
	}
	if err := c.db.WithContext(testContext(t)).Raw("SELECT version_id, is_applied FROM goose_db_version ORDER BY id").Scan(&rows).Error; err != nil {
		t.Fatalf("read goose_db_version: %v", err)
	}
	var vs []int64
	for _, r := range rows {
		if r.IsApplied {
			vs = append(vs, r.VersionID)
		}
	}
	return vs
}

// upTo returns the versions 0..n.
func upTo(n int64) []int64 {
	var vs []int64
	for v := range n + 1 {
		vs = append(vs, v)
	}
	return vs
}

// withFiles returns the migration files of dialect d whose version is at most last, plus
// extra (name → SQL).
func withFiles(t *testing.T, d Dialect, last int64, extra map[string]string) fs.FS {
	t.Helper()
	files, err := migrationsOf(d)
	if err != nil {
		t.Fatal(err)
	}
	out := fstest.MapFS{}
	names, _ := fs.Glob(files, "*.sql")
	for _, n := range names {
		num, _, _ := strings.Cut(n, "_")
		if v, _ := strconv.ParseInt(num, 10, 64); v > last {
			continue
		}
		b, err := fs.ReadFile(files, n)
		if err != nil {
			t.Fatal(err)
		}
		out[n] = &fstest.MapFile{Data: b}
	}
	for n, sql := range extra {
		out[n] = &fstest.MapFile{Data: []byte(sql)}
	}
	return out
}

// dialectOf returns the dialect of a catalog URL.
func dialectOf(t *testing.T, url string) Dialect {
	t.Helper()
	tg, err := parseURL(url, 0)
	if err != nil {
		t.Fatal(err)
	}
	return tg.dialect
}

// The three dialects migrate through the same versions, with the same names.
func TestMigrationFilesAlike(t *testing.T) {
	list := func(d Dialect) []string {
		files, err := migrationsOf(d)
		if err != nil {
			t.Fatal(err)
		}
		names, err := fs.Glob(files, "*")
		if err != nil {
			t.Fatal(err)
		}
		return names
	}
	want := list(SQLite)
	if len(want) == 0 {
		t.Fatal("no migration files")
	}
	for _, d := range []Dialect{MySQL, Postgres} {
		if got := list(d); !slices.Equal(got, want) {
			t.Errorf("%s migrations %v, sqlite %v", d, got, want)
		}
	}
	if vs := migrationVersions(t, SQLite); !slices.Equal(vs, upTo(vs[len(vs)-1])[1:]) {
		t.Errorf("versions %v: want 1, 2, 3, … without gaps", vs)
	}
}

func TestMigrations(t *testing.T) {
	eachDB(t, func(t *testing.T, url string) {
		ctx := testContext(t)
		latest := latestVersion(t)
		c := openTest(t, url, Options{})
		if got := appliedVersions(t, c); !slices.Equal(got, upTo(latest)) {
			t.Fatalf("goose_db_version lists %v, want %v", got, upTo(latest))
		}
		// The fence: releases before goose read schema_migrations and must refuse.
		var fence []int64
		if err := c.db.WithContext(ctx).Raw("SELECT version FROM schema_migrations").Scan(&fence).Error; err != nil || !slices.Equal(fence, []int64{5}) {
			t.Fatalf("schema_migrations = %v, %v; want [5]", fence, err)
		}
		if _, err := c.CreateCluster(ctx, Cluster{Name: "dc1", ZKQuorum: "zk1:2181"}); err != nil {
			t.Fatal(err)
		}
		c.Close()

		// Reopening applies nothing and keeps the data.
		c = openTest(t, url, Options{})
		if got := appliedVersions(t, c); !slices.Equal(got, upTo(latest)) {
			t.Fatalf("after reopening, goose_db_version lists %v, want %v", got, upTo(latest))
		}
		if _, err := c.GetCluster(ctx, "dc1"); err != nil {
			t.Fatalf("after reopening: %v", err)
		}
		c.Close()

		// A newer binary's migration applies once on top.
		next := withFiles(t, dialectOf(t, url), latest, map[string]string{
			fmt.Sprintf("%05d_probe.sql", latest+1): "-- +goose Up\nCREATE TABLE migration_probe (id INTEGER NOT NULL PRIMARY KEY);\n",
		})
		for range 2 {
			c2, err := open(ctx, url, Options{}, next)
			if err != nil {
				t.Fatalf("open with migration %d: %v", latest+1, err)
			}
			if got := appliedVersions(t, c2); !slices.Equal(got, upTo(latest+1)) {
				t.Fatalf("goose_db_version lists %v, want %v", got, upTo(latest+1))
			}
			if err := c2.db.WithContext(ctx).Exec("INSERT INTO migration_probe (id) VALUES (1)").Error; err != nil {
				t.Fatalf("the new migration's table: %v", err)
			}
			c2.db.WithContext(ctx).Exec("DELETE FROM migration_probe")
			c2.Close()
		}

		// This binary refuses the catalog the newer one migrated.
		_, err := Open(ctx, url, Options{})
		if !errors.Is(err, ErrSchemaTooNew) {
			t.Fatalf("Open of a newer schema = %v, want ErrSchemaTooNew", err)
		}
		want := []string{fmt.Sprintf("schema version %d", latest+1), fmt.Sprintf("versions up to %d", latest)}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q does not say %q", err, w)
			}
		}
	})
}

// A catalog of version 1 (before relocations) migrates to the latest, keeping its data.
func TestMigrationFromV1(t *testing.T) {
	eachDB(t, func(t *testing.T, url string) {
		ctx := testContext(t)
		c1, err := open(ctx, url, Options{}, withFiles(t, dialectOf(t, url), 1, nil))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c1.CreateCluster(ctx, Cluster{Name: "dc1", ZKQuorum: "zk1:2181"}); err != nil {
			t.Fatal(err)
		}
		if _, err := c1.CreateCluster(ctx, Cluster{Name: "dc2", ZKQuorum: "zk2:2181"}); err != nil {
			t.Fatal(err)
		}
		c1.Close()
		c := openTest(t, url, Options{})
		if got, want := appliedVersions(t, c), upTo(latestVersion(t)); !slices.Equal(got, want) {
			t.Fatalf("goose_db_version lists %v after the upgrade, want %v", got, want)
		}
		if _, err := c.GetCluster(ctx, "dc1"); err != nil {
			t.Fatalf("after the upgrade: %v", err)
		}
		r := Relocation{ID: NewRelocationID(), SourceCluster: "dc1", TargetCluster: "dc2", Tables: []RelocationTable{{Source: "t"}},
			Schedule: "@hourly", Phase: "copying"}
		if _, err := c.CreateRelocation(ctx, r, nil); err != nil {
			t.Fatalf("a relocation after the upgrade: %v", err)
		}
	})
}

func TestMigrationStampedFuture(t *testing.T) {
	eachDB(t, func(t *testing.T, url string) {
		ctx := testContext(t)
		c := openTest(t, url, Options{})
		if err := c.db.WithContext(ctx).Exec("INSERT INTO goose_db_version (version_id, is_applied) VALUES (?, ?)", 999, true).Error; err != nil {
			t.Fatal(err)
		}
		c.Close()
		_, err := Open(ctx, url, Options{})
		if !errors.Is(err, ErrSchemaTooNew) || !strings.Contains(err.Error(), "999") {
			t.Fatalf("Open = %v, want ErrSchemaTooNew naming version 999", err)
		}
	})
}

// Servers starting together migrate an empty catalog once.
func TestConcurrentOpen(t *testing.T) {
	eachDB(t, func(t *testing.T, url string) {
		ctx := testContext(t)
		const n = 6
		cs := make([]*Catalog, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { cs[i], errs[i] = Open(ctx, url, Options{}) })
		}
		wg.Wait()
		for i := range n {
			if errs[i] != nil {
				t.Errorf("Open %d: %v", i, errs[i])
				continue
			}
			cs[i].Close()
		}
		c := openTest(t, url, Options{})
		if got, want := appliedVersions(t, c), upTo(latestVersion(t)); !slices.Equal(got, want) {
			t.Fatalf("goose_db_version lists %v, want %v (each version once)", got, want)
		}
	})
}
