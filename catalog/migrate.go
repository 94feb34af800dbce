package catalog

import (
	"context"
	"fmt"
	"strings"

	"gorm.io/gorm"
)

// migration is one step of the schema. Its statements differ per dialect; where the dialect
// allows DDL in transactions (SQLite, PostgreSQL) a migration is applied in one transaction
// together with its row in schema_migrations. MySQL commits each DDL statement on its own, so
// its statements are written to be repeatable (IF NOT EXISTS) and the version row comes last.
type migration struct {
	version int64
	name    string
	sql     func(d Dialect) []string
}

// migrations are the steps of the schema, in order. Append; never edit an applied one.
var migrations = []migration{
	{version: 1, name: "clusters, jobs, job events, tokens, audit log", sql: schemaV1},
	{version: 2, name: "relocations and their windows", sql: schemaV2},
	{version: 3, name: "verifications", sql: schemaV3},
	{version: 4, name: "job samples", sql: schemaV4},
}

// types are the column types of one dialect.
type types struct {
	text, time, serial, suffix string
}

func typesOf(d Dialect) types {
	switch d {
	case MySQL:
		// utf8mb4_bin: keys compare byte for byte (job ids, names are case-sensitive).
		return types{text: "LONGTEXT", time: "DATETIME(6)", serial: "BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY",
			suffix: " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin"}
	case Postgres:
		return types{text: "TEXT", time: "TIMESTAMPTZ", serial: "BIGSERIAL PRIMARY KEY"}
	default:
		return types{text: "TEXT", time: "DATETIME", serial: "INTEGER PRIMARY KEY AUTOINCREMENT"}
	}
}

func schemaV1(d Dialect) []string {
	t := typesOf(d)
	r := strings.NewReplacer("{text}", t.text, "{time}", t.time, "{serial}", t.serial, "{suffix}", t.suffix)
	tables := []string{`CREATE TABLE IF NOT EXISTS clusters (
  name VARCHAR(191) NOT NULL PRIMARY KEY,
  zk_quorum VARCHAR(2000) NOT NULL,
  znode_parent VARCHAR(255) NOT NULL,
  hdfs_root VARCHAR(2000) NOT NULL,
  user_name VARCHAR(255) NOT NULL,
  site_files {text} NULL,
  created_at {time} NOT NULL,
  updated_at {time} NOT NULL
){suffix}`,
		`CREATE TABLE IF NOT EXISTS jobs (
  id VARCHAR(191) NOT NULL PRIMARY KEY,
  spec {text} NOT NULL,
  table_name VARCHAR(255) NOT NULL,
  target_table VARCHAR(255) NOT NULL,
  source_cluster VARCHAR(191) NOT NULL,
  target_cluster VARCHAR(191) NOT NULL,
  submitted_by VARCHAR(255) NOT NULL,
  submitted_at {time} NOT NULL,
  updated_at {time} NOT NULL,
  state VARCHAR(32) NOT NULL,
  last_error {text} NOT NULL,
  final_report {text} NOT NULL,
  idempotency_key VARCHAR(191) NULL,
  CONSTRAINT jobs_idempotency_key UNIQUE (idempotency_key){mysqlJobKeys}
){suffix}`,
		`CREATE TABLE IF NOT EXISTS job_events (
  id {serial},
  job_id VARCHAR(191) NOT NULL,
  time {time} NOT NULL,
  state VARCHAR(32) NOT NULL,
  message {text} NOT NULL,
  CONSTRAINT job_events_job FOREIGN KEY (job_id) REFERENCES jobs (id) ON DELETE CASCADE{mysqlEventKeys}
){suffix}`,
		`CREATE TABLE IF NOT EXISTS tokens (
  id VARCHAR(64) NOT NULL PRIMARY KEY,
  name VARCHAR(255) NOT NULL,
  role VARCHAR(16) NOT NULL,
  secret_hash CHAR(64) NOT NULL,
  created_at {time} NOT NULL,
  last_used_at {time} NULL,
  revoked_at {time} NULL,
  CONSTRAINT tokens_secret_hash UNIQUE (secret_hash)
){suffix}`,
		`CREATE TABLE IF NOT EXISTS audit_log (
  id {serial},
  time {time} NOT NULL,
  token_id VARCHAR(64) NOT NULL,
  token_name VARCHAR(255) NOT NULL,
  role VARCHAR(16) NOT NULL,
  method VARCHAR(16) NOT NULL,
  path {text} NOT NULL,
  remote_addr VARCHAR(255) NOT NULL,
  status INTEGER NOT NULL,
  message {text} NOT NULL{mysqlAuditKeys}
){suffix}`,
	}
	indexes := [][2]string{
		{"jobs_submitted", "jobs (submitted_at, id)"},
		{"jobs_state", "jobs (state)"},
		{"jobs_table", "jobs (table_name)"},
		{"jobs_source_cluster", "jobs (source_cluster)"},
		{"jobs_target_cluster", "jobs (target_cluster)"},
		{"job_events_job", "job_events (job_id, id)"},
		{"audit_log_time", "audit_log (time)"},
	}
	// MySQL has no CREATE INDEX IF NOT EXISTS (MariaDB has), so there the indexes are part
	// of CREATE TABLE, which is repeatable.
	keys := map[string]string{}
	for _, ix := range indexes {
		table, cols, _ := strings.Cut(ix[1], " ")
		keys[table] += ",\n  KEY " + ix[0] + " " + cols
	}
	var out []string
	for _, s := range tables {
		if d == MySQL {
			s = strings.NewReplacer("{mysqlJobKeys}", keys["jobs"], "{mysqlEventKeys}", keys["job_events"], "{mysqlAuditKeys}", keys["audit_log"]).Replace(s)
		} else {
			s = strings.NewReplacer("{mysqlJobKeys}", "", "{mysqlEventKeys}", "", "{mysqlAuditKeys}", "").Replace(s)
		}
		out = append(out, r.Replace(s))
	}
	if d != MySQL {
		for _, ix := range indexes {
			out = append(out, "CREATE INDEX IF NOT EXISTS "+ix[0]+" ON "+ix[1])
		}
	}
	return out
}

// schemaV2 adds relocations (a scope, a schedule and the state of their state machine) and
// their windows (one row per full copy, catch-up, skipped tick or final window).
func schemaV2(d Dialect) []string {
	t := typesOf(d)
	r := strings.NewReplacer("{text}", t.text, "{time}", t.time, "{suffix}", t.suffix)
	relKeys := ""
	if d == MySQL {
		relKeys = ",\n  KEY relocations_created (created_at, id),\n  KEY relocations_phase (phase)"
	}
	out := []string{r.Replace(`CREATE TABLE IF NOT EXISTS relocations (
  id VARCHAR(64) NOT NULL PRIMARY KEY,
  source_cluster VARCHAR(191) NOT NULL,
  target_cluster VARCHAR(191) NOT NULL,
  tables {text} NOT NULL,
  start_row {text} NOT NULL,
  stop_row {text} NOT NULL,
  families {text} NOT NULL,
  bandwidth VARCHAR(64) NOT NULL,
  schedule VARCHAR(255) NOT NULL,
  margin_ms BIGINT NOT NULL,
  max_lag_ms BIGINT NOT NULL,
  phase VARCHAR(32) NOT NULL,
  resume_phase VARCHAR(32) NOT NULL,
  why {text} NOT NULL,
  watermark BIGINT NOT NULL,
  next_tick {time} NULL,
  seq INTEGER NOT NULL,
  running_seq INTEGER NOT NULL,
  last_seq INTEGER NOT NULL,
  verifying BOOLEAN NOT NULL,
  verification {text} NOT NULL,
  report {text} NOT NULL,
  created_by VARCHAR(255) NOT NULL,
  created_at {time} NOT NULL,
  updated_at {time} NOT NULL,
  finished_at {time} NULL` + relKeys + `
){suffix}`),
		r.Replace(`CREATE TABLE IF NOT EXISTS relocation_windows (
  relocation_id VARCHAR(64) NOT NULL,
  seq INTEGER NOT NULL,
  kind VARCHAR(16) NOT NULL,
  start_time BIGINT NOT NULL,
  end_time BIGINT NOT NULL,
  snapshot_time BIGINT NOT NULL,
  job_ids {text} NOT NULL,
  bytes BIGINT NOT NULL,
  files_loaded BIGINT NOT NULL,
  files_pruned BIGINT NOT NULL,
  started_at {time} NOT NULL,
  finished_at {time} NULL,
  duration_ms BIGINT NOT NULL,
  lag_ms BIGINT NOT NULL,
  outcome VARCHAR(16) NOT NULL,
  why {text} NOT NULL,
  PRIMARY KEY (relocation_id, seq),
  CONSTRAINT relocation_windows_relocation FOREIGN KEY (relocation_id) REFERENCES relocations (id) ON DELETE CASCADE
){suffix}`),
	}
	if d != MySQL {
		out = append(out, "CREATE INDEX IF NOT EXISTS relocations_created ON relocations (created_at, id)",
			"CREATE INDEX IF NOT EXISTS relocations_phase ON relocations (phase)")
	}
	return out
}

// schemaV3 adds verifications: a comparison of a range of a table on two clusters, run by
// one server (runner), its spec and its report as JSON.
func schemaV3(d Dialect) []string {
	t := typesOf(d)
	r := strings.NewReplacer("{text}", t.text, "{time}", t.time, "{suffix}", t.suffix)
	keys := ""
	if d == MySQL {
		keys = ",\n  KEY verifications_created (created_at, id),\n  KEY verifications_state (state)"
	}
	out := []string{r.Replace(`CREATE TABLE IF NOT EXISTS verifications (
  id VARCHAR(64) NOT NULL PRIMARY KEY,
  spec {text} NOT NULL,
  state VARCHAR(16) NOT NULL,
  report {text} NOT NULL,
  error {text} NOT NULL,
  runner VARCHAR(255) NOT NULL,
  created_by VARCHAR(255) NOT NULL,
  created_at {time} NOT NULL,
  heartbeat_at {time} NOT NULL,
  finished_at {time} NULL` + keys + `
){suffix}`)}
	if d != MySQL {
		out = append(out, "CREATE INDEX IF NOT EXISTS verifications_created ON verifications (created_at, id)",
			"CREATE INDEX IF NOT EXISTS verifications_state ON verifications (state)")
	}
	return out
}

// schemaV4 adds job samples: how far a job had copied at a time, the points of the
// dashboard's throughput chart, deleted with their job.
func schemaV4(d Dialect) []string {
	t := typesOf(d)
	r := strings.NewReplacer("{time}", t.time, "{serial}", t.serial, "{suffix}", t.suffix)
	keys := ""
	if d == MySQL {
		keys = ",\n  KEY job_samples_job (job_id, time)"
	}
	out := []string{r.Replace(`CREATE TABLE IF NOT EXISTS job_samples (
  id {serial},
  job_id VARCHAR(191) NOT NULL,
  time {time} NOT NULL,
  bytes_done BIGINT NOT NULL,
  CONSTRAINT job_samples_job_fk FOREIGN KEY (job_id) REFERENCES jobs (id) ON DELETE CASCADE` + keys + `
){suffix}`)}
	if d != MySQL {
		out = append(out, "CREATE INDEX IF NOT EXISTS job_samples_job ON job_samples (job_id, time)")
	}
	return out
}

// migrate applies the migrations of ms the catalog lacks, one at a time, holding a lock so two
// servers starting together do not both apply one.
func (c *Catalog) migrate(ctx context.Context, ms []migration) error {
	latest := ms[len(ms)-1].version
	return c.withMigrationLock(ctx, func(db *gorm.DB) error {
		t := typesOf(c.dialect)
		create := fmt.Sprintf("CREATE TABLE IF NOT EXISTS schema_migrations (\n  version BIGINT NOT NULL PRIMARY KEY,\n  name VARCHAR(255) NOT NULL,\n  applied_at %s NOT NULL\n)%s", t.time, t.suffix)
		if err := db.Exec(create).Error; err != nil {
			return fmt.Errorf("create schema_migrations: %w", err)
		}
		for _, m := range ms {
			apply := func(tx *gorm.DB) error {
				applied, err := appliedVersions(tx)
				if err != nil {
					return err
				}
				if n := len(applied); n > 0 && applied[n-1] > latest {
					return fmt.Errorf("%w: the catalog is at schema version %d, this rangecopy knows versions up to %d: run the rangecopy that migrated it, or a newer one", ErrSchemaTooNew, applied[n-1], latest)
				}
				for _, v := range applied {
					if v == m.version {
						return nil
					}
				}
				for _, stmt := range m.sql(c.dialect) {
					if err := tx.Exec(stmt).Error; err != nil {
						return fmt.Errorf("migration %d (%s): %w\n%s", m.version, m.name, err, stmt)
					}
				}
				if err := tx.Exec("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)", m.version, m.name, c.stampNow()).Error; err != nil {
					return fmt.Errorf("migration %d (%s): record it: %w", m.version, m.name, err)
				}
				c.log.Info("catalog: schema migrated", "version", m.version, "name", m.name, "dialect", c.dialect)
				return nil
			}
			var err error
			if c.dialect == MySQL {
				err = apply(db)
			} else {
				err = db.Transaction(apply)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// withMigrationLock runs fn holding the catalog's migration lock: PostgreSQL's advisory lock
// and MySQL's named lock on one connection; SQLite's immediate transactions lock the file
// (each migration's transaction reads the applied versions again).
func (c *Catalog) withMigrationLock(ctx context.Context, fn func(db *gorm.DB) error) error {
	db := c.db.WithContext(ctx)
	if c.dialect == SQLite {
		return fn(db)
	}
	return db.Connection(func(conn *gorm.DB) error {
		switch c.dialect {
		case Postgres:
			if err := conn.Exec("SELECT pg_advisory_lock(1918987879)").Error; err != nil {
				return fmt.Errorf("take the migration lock: %w", err)
			}
			defer conn.Exec("SELECT pg_advisory_unlock(1918987879)")
		case MySQL:
			var got *int
			if err := conn.Raw("SELECT GET_LOCK('rangecopy.catalog.migrate', 60)").Scan(&got).Error; err != nil {
				return fmt.Errorf("take the migration lock: %w", err)
			}
			if got == nil || *got != 1 {
				return fmt.Errorf("take the migration lock: another process held it for 60 s")
			}
			defer conn.Exec("SELECT RELEASE_LOCK('rangecopy.catalog.migrate')")
		}
		return fn(conn)
	})
}

// appliedVersions returns the applied migration versions, ascending.
func appliedVersions(db *gorm.DB) ([]int64, error) {
	var vs []int64
	if err := db.Raw("SELECT version FROM schema_migrations ORDER BY version").Scan(&vs).Error; err != nil {
		return nil, fmt.Errorf("read schema_migrations: %w", err)
	}
	return vs, nil
}

// SchemaVersion returns the highest applied migration's version.
func (c *Catalog) SchemaVersion(ctx context.Context) (int64, error) {
	vs, err := appliedVersions(c.db.WithContext(ctx))
	if err != nil {
		return 0, fmt.Errorf("catalog: %w", err)
	}
	if len(vs) == 0 {
		return 0, nil
	}
	return vs[len(vs)-1], nil
}

// LatestSchemaVersion is the schema version this binary migrates a catalog to.
func LatestSchemaVersion() int64 { return migrations[len(migrations)-1].version }
