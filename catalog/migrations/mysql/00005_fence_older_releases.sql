-- The schema's version is kept by goose (goose_db_version) from here on. Releases before
-- goose read schema_migrations: the row of version 5 makes them refuse this catalog
-- (ErrSchemaTooNew) instead of running on a schema they do not know.
-- +goose Up
CREATE TABLE IF NOT EXISTS schema_migrations (
  version BIGINT NOT NULL PRIMARY KEY,
  name VARCHAR(255) NOT NULL,
  applied_at DATETIME(6) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

INSERT IGNORE INTO schema_migrations (version, name, applied_at)
VALUES (5, 'the schema version is in goose_db_version from here on', UTC_TIMESTAMP(6));
