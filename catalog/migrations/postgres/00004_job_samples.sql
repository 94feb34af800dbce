-- Job samples.
-- Repeatable (IF NOT EXISTS): on a catalog of a release before goose, whose
-- schema_migrations already lists this step, goose runs it again as a no-op.
-- +goose Up
CREATE TABLE IF NOT EXISTS job_samples (
  id BIGSERIAL PRIMARY KEY,
  job_id VARCHAR(191) NOT NULL,
  time TIMESTAMPTZ NOT NULL,
  bytes_done BIGINT NOT NULL,
  CONSTRAINT job_samples_job_fk FOREIGN KEY (job_id) REFERENCES jobs (id) ON DELETE CASCADE
);

CREATE INDEX IF NOT EXISTS job_samples_job ON job_samples (job_id, time);
