package catalog

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestMigrations(t *testing.T) {
	eachDB(t, func(t *testing.T, url string) {
		ctx := testContext(t)
		c := openTest(t, url, Options{})
		v, err := c.SchemaVersion(ctx)
		if err != nil || v != LatestSchemaVersion() {
			t.Fatalf("SchemaVersion = %d, %v; want %d", v, err, LatestSchemaVersion())
		}
		rows := func(c *Catalog) int64 {
			var n int64
			if err := c.db.WithContext(ctx).Table("schema_migrations").Count(&n).Error; err != nil {
				t.Fatalf("count schema_migrations: %v", err)
			}
			return n
		}
		if n := rows(c); n != int64(len(migrations)) {
			t.Fatalf("schema_migrations has %d rows, want %d", n, len(migrations))
		}
		if _, err := c.CreateCluster(ctx, Cluster{Name: "dc1", ZKQuorum: "zk1:2181"}); err != nil {
			t.Fatal(err)
		}
		c.Close()

		// Reopening applies nothing and keeps the data.
		c = openTest(t, url, Options{})
		if n := rows(c); n != int64(len(migrations)) {
			t.Fatalf("after reopening, schema_migrations has %d rows, want %d", n, len(migrations))
		}
		if _, err := c.GetCluster(ctx, "dc1"); err != nil {
			t.Fatalf("after reopening: %v", err)
		}
		c.Close()

		// A newer binary's migration applies once on top.
		next := append(append([]migration(nil), migrations...), migration{
			version: LatestSchemaVersion() + 1, name: "test table",
			sql: func(Dialect) []string {
				return []string{"CREATE TABLE migration_probe (id INTEGER NOT NULL PRIMARY KEY)"}
			},
		})
		for range 2 {
			c2, err := open(ctx, url, Options{}, next)
			if err != nil {
				t.Fatalf("open with migration %d: %v", LatestSchemaVersion()+1, err)
			}
			if v, _ := c2.SchemaVersion(ctx); v != LatestSchemaVersion()+1 {
				t.Fatalf("SchemaVersion = %d, want %d", v, LatestSchemaVersion()+1)
			}
			if err := c2.db.WithContext(ctx).Exec("INSERT INTO migration_probe (id) VALUES (1)").Error; err != nil {
				t.Fatalf("the new migration's table: %v", err)
			}
			c2.db.WithContext(ctx).Exec("DELETE FROM migration_probe")
			c2.Close()
		}

		// This binary refuses the catalog the newer one migrated.
		_, err = Open(ctx, url, Options{})
		if !errors.Is(err, ErrSchemaTooNew) {
			t.Fatalf("Open of a newer schema = %v, want ErrSchemaTooNew", err)
		}
		want := []string{fmt.Sprintf("schema version %d", LatestSchemaVersion()+1), fmt.Sprintf("versions up to %d", LatestSchemaVersion())}
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
		c1, err := open(ctx, url, Options{}, migrations[:1])
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
		if v, _ := c.SchemaVersion(ctx); v != LatestSchemaVersion() {
			t.Fatalf("SchemaVersion = %d after the upgrade", v)
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
		if err := c.db.WithContext(ctx).Exec("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)", 999, "from the future", c.stampNow()).Error; err != nil {
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
		var vs []int64
		if err := c.db.WithContext(ctx).Raw("SELECT version FROM schema_migrations").Scan(&vs).Error; err != nil || len(vs) != len(migrations) {
			t.Fatalf("schema_migrations: %v, %v; want %d rows", vs, err, len(migrations))
		}
	})
}
