-- Verifications.
-- Repeatable (IF NOT EXISTS): on a catalog of a release before goose, whose
-- schema_migrations already lists this step, goose runs it again as a no-op.
-- +goose Up
CREATE TABLE IF NOT EXISTS verifications (
  id VARCHAR(64) NOT NULL PRIMARY KEY,
  spec TEXT NOT NULL,
  state VARCHAR(16) NOT NULL,
  report TEXT NOT NULL,
  error TEXT NOT NULL,
  runner VARCHAR(255) NOT NULL,
  created_by VARCHAR(255) NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  heartbeat_at TIMESTAMPTZ NOT NULL,
  finished_at TIMESTAMPTZ NULL
);

CREATE INDEX IF NOT EXISTS verifications_created ON verifications (created_at, id);

CREATE INDEX IF NOT EXISTS verifications_state ON verifications (state);
