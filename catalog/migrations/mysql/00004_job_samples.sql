-- Job samples.
-- Repeatable (IF NOT EXISTS): on a catalog of a release before goose, whose
-- schema_migrations already lists this step, goose runs it again as a no-op.
-- MySQL has no CREATE INDEX IF NOT EXISTS, so the indexes are keys of CREATE TABLE.
-- +goose Up
CREATE TABLE IF NOT EXISTS job_samples (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  job_id VARCHAR(191) NOT NULL,
  time DATETIME(6) NOT NULL,
  bytes_done BIGINT NOT NULL,
  CONSTRAINT job_samples_job_fk FOREIGN KEY (job_id) REFERENCES jobs (id) ON DELETE CASCADE,
  KEY job_samples_job (job_id, time)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
