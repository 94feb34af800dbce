-- Clusters, jobs, job events, tokens, audit log.
-- Repeatable (IF NOT EXISTS): on a catalog of a release before goose, whose
-- schema_migrations already lists this step, goose runs it again as a no-op.
-- +goose Up
CREATE TABLE IF NOT EXISTS clusters (
  name VARCHAR(191) NOT NULL PRIMARY KEY,
  zk_quorum VARCHAR(2000) NOT NULL,
  znode_parent VARCHAR(255) NOT NULL,
  hdfs_root VARCHAR(2000) NOT NULL,
  user_name VARCHAR(255) NOT NULL,
  site_files TEXT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE IF NOT EXISTS jobs (
  id VARCHAR(191) NOT NULL PRIMARY KEY,
  spec TEXT NOT NULL,
  table_name VARCHAR(255) NOT NULL,
  target_table VARCHAR(255) NOT NULL,
  source_cluster VARCHAR(191) NOT NULL,
  target_cluster VARCHAR(191) NOT NULL,
  submitted_by VARCHAR(255) NOT NULL,
  submitted_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  state VARCHAR(32) NOT NULL,
  last_error TEXT NOT NULL,
  final_report TEXT NOT NULL,
  idempotency_key VARCHAR(191) NULL,
  CONSTRAINT jobs_idempotency_key UNIQUE (idempotency_key)
);

CREATE TABLE IF NOT EXISTS job_events (
  id BIGSERIAL PRIMARY KEY,
  job_id VARCHAR(191) NOT NULL,
  time TIMESTAMPTZ NOT NULL,
  state VARCHAR(32) NOT NULL,
  message TEXT NOT NULL,
  CONSTRAINT job_events_job FOREIGN KEY (job_id) REFERENCES jobs (id) ON DELETE CASCADE
);

CREATE TABLE IF NOT EXISTS tokens (
  id VARCHAR(64) NOT NULL PRIMARY KEY,
  name VARCHAR(255) NOT NULL,
  role VARCHAR(16) NOT NULL,
  secret_hash CHAR(64) NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  last_used_at TIMESTAMPTZ NULL,
  revoked_at TIMESTAMPTZ NULL,
  CONSTRAINT tokens_secret_hash UNIQUE (secret_hash)
);

CREATE TABLE IF NOT EXISTS audit_log (
  id BIGSERIAL PRIMARY KEY,
  time TIMESTAMPTZ NOT NULL,
  token_id VARCHAR(64) NOT NULL,
  token_name VARCHAR(255) NOT NULL,
  role VARCHAR(16) NOT NULL,
  method VARCHAR(16) NOT NULL,
  path TEXT NOT NULL,
  remote_addr VARCHAR(255) NOT NULL,
  status INTEGER NOT NULL,
  message TEXT NOT NULL
);

CREATE INDEX IF NOT EXISTS jobs_submitted ON jobs (submitted_at, id);

CREATE INDEX IF NOT EXISTS jobs_state ON jobs (state);

CREATE INDEX IF NOT EXISTS jobs_table ON jobs (table_name);

CREATE INDEX IF NOT EXISTS jobs_source_cluster ON jobs (source_cluster);

CREATE INDEX IF NOT EXISTS jobs_target_cluster ON jobs (target_cluster);

CREATE INDEX IF NOT EXISTS job_events_job ON job_events (job_id, id);

CREATE INDEX IF NOT EXISTS audit_log_time ON audit_log (time);
