-- Clusters, jobs, job events, tokens, audit log.
-- Repeatable (IF NOT EXISTS): on a catalog of a release before goose, whose
-- schema_migrations already lists this step, goose runs it again as a no-op.
-- MySQL has no CREATE INDEX IF NOT EXISTS, so the indexes are keys of CREATE TABLE.
-- +goose Up
CREATE TABLE IF NOT EXISTS clusters (
  name VARCHAR(191) NOT NULL PRIMARY KEY,
  zk_quorum VARCHAR(2000) NOT NULL,
  znode_parent VARCHAR(255) NOT NULL,
  hdfs_root VARCHAR(2000) NOT NULL,
  user_name VARCHAR(255) NOT NULL,
  site_files LONGTEXT NULL,
  created_at DATETIME(6) NOT NULL,
  updated_at DATETIME(6) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS jobs (
  id VARCHAR(191) NOT NULL PRIMARY KEY,
  spec LONGTEXT NOT NULL,
  table_name VARCHAR(255) NOT NULL,
  target_table VARCHAR(255) NOT NULL,
  source_cluster VARCHAR(191) NOT NULL,
  target_cluster VARCHAR(191) NOT NULL,
  submitted_by VARCHAR(255) NOT NULL,
  submitted_at DATETIME(6) NOT NULL,
  updated_at DATETIME(6) NOT NULL,
  state VARCHAR(32) NOT NULL,
  last_error LONGTEXT NOT NULL,
  final_report LONGTEXT NOT NULL,
  idempotency_key VARCHAR(191) NULL,
  CONSTRAINT jobs_idempotency_key UNIQUE (idempotency_key),
  KEY jobs_submitted (submitted_at, id),
  KEY jobs_state (state),
  KEY jobs_table (table_name),
  KEY jobs_source_cluster (source_cluster),
  KEY jobs_target_cluster (target_cluster)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS job_events (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  job_id VARCHAR(191) NOT NULL,
  time DATETIME(6) NOT NULL,
  state VARCHAR(32) NOT NULL,
  message LONGTEXT NOT NULL,
  CONSTRAINT job_events_job FOREIGN KEY (job_id) REFERENCES jobs (id) ON DELETE CASCADE,
  KEY job_events_job (job_id, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS tokens (
  id VARCHAR(64) NOT NULL PRIMARY KEY,
  name VARCHAR(255) NOT NULL,
  role VARCHAR(16) NOT NULL,
  secret_hash CHAR(64) NOT NULL,
  created_at DATETIME(6) NOT NULL,
  last_used_at DATETIME(6) NULL,
  revoked_at DATETIME(6) NULL,
  CONSTRAINT tokens_secret_hash UNIQUE (secret_hash)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS audit_log (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  time DATETIME(6) NOT NULL,
  token_id VARCHAR(64) NOT NULL,
  token_name VARCHAR(255) NOT NULL,
  role VARCHAR(16) NOT NULL,
  method VARCHAR(16) NOT NULL,
  path LONGTEXT NOT NULL,
  remote_addr VARCHAR(255) NOT NULL,
  status INTEGER NOT NULL,
  message LONGTEXT NOT NULL,
  KEY audit_log_time (time)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
