-- Relocations and their windows.
-- Repeatable (IF NOT EXISTS): on a catalog of a release before goose, whose
-- schema_migrations already lists this step, goose runs it again as a no-op.
-- MySQL has no CREATE INDEX IF NOT EXISTS, so the indexes are keys of CREATE TABLE.
-- +goose Up
CREATE TABLE IF NOT EXISTS relocations (
  id VARCHAR(64) NOT NULL PRIMARY KEY,
  source_cluster VARCHAR(191) NOT NULL,
  target_cluster VARCHAR(191) NOT NULL,
  tables LONGTEXT NOT NULL,
  start_row LONGTEXT NOT NULL,
  stop_row LONGTEXT NOT NULL,
  families LONGTEXT NOT NULL,
  bandwidth VARCHAR(64) NOT NULL,
  schedule VARCHAR(255) NOT NULL,
  margin_ms BIGINT NOT NULL,
  max_lag_ms BIGINT NOT NULL,
  phase VARCHAR(32) NOT NULL,
  resume_phase VARCHAR(32) NOT NULL,
  why LONGTEXT NOT NULL,
  watermark BIGINT NOT NULL,
  next_tick DATETIME(6) NULL,
  seq INTEGER NOT NULL,
  running_seq INTEGER NOT NULL,
  last_seq INTEGER NOT NULL,
  verifying BOOLEAN NOT NULL,
  verification LONGTEXT NOT NULL,
  report LONGTEXT NOT NULL,
  created_by VARCHAR(255) NOT NULL,
  created_at DATETIME(6) NOT NULL,
  updated_at DATETIME(6) NOT NULL,
  finished_at DATETIME(6) NULL,
  KEY relocations_created (created_at, id),
  KEY relocations_phase (phase)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS relocation_windows (
  relocation_id VARCHAR(64) NOT NULL,
  seq INTEGER NOT NULL,
  kind VARCHAR(16) NOT NULL,
  start_time BIGINT NOT NULL,
  end_time BIGINT NOT NULL,
  snapshot_time BIGINT NOT NULL,
  job_ids LONGTEXT NOT NULL,
  bytes BIGINT NOT NULL,
  files_loaded BIGINT NOT NULL,
  files_pruned BIGINT NOT NULL,
  started_at DATETIME(6) NOT NULL,
  finished_at DATETIME(6) NULL,
  duration_ms BIGINT NOT NULL,
  lag_ms BIGINT NOT NULL,
  outcome VARCHAR(16) NOT NULL,
  why LONGTEXT NOT NULL,
  PRIMARY KEY (relocation_id, seq),
  CONSTRAINT relocation_windows_relocation FOREIGN KEY (relocation_id) REFERENCES relocations (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
