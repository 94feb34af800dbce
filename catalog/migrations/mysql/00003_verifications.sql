-- Verifications.
-- Repeatable (IF NOT EXISTS): on a catalog of a release before goose, whose
-- schema_migrations already lists this step, goose runs it again as a no-op.
-- MySQL has no CREATE INDEX IF NOT EXISTS, so the indexes are keys of CREATE TABLE.
-- +goose Up
CREATE TABLE IF NOT EXISTS verifications (
  id VARCHAR(64) NOT NULL PRIMARY KEY,
  spec LONGTEXT NOT NULL,
  state VARCHAR(16) NOT NULL,
  report LONGTEXT NOT NULL,
  error LONGTEXT NOT NULL,
  runner VARCHAR(255) NOT NULL,
  created_by VARCHAR(255) NOT NULL,
  created_at DATETIME(6) NOT NULL,
  heartbeat_at DATETIME(6) NOT NULL,
  finished_at DATETIME(6) NULL,
  KEY verifications_created (created_at, id),
  KEY verifications_state (state)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
