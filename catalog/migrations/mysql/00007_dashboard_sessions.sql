-- Dashboard sessions: a sign-in with a token opens one; the browser's cookie holds its id,
-- the catalog only the id's SHA-256. A session ends at its absolute or idle expiry, on
-- sign-out, or with its token (revoked or deleted).
-- MySQL has no CREATE INDEX IF NOT EXISTS, so the indexes are keys of CREATE TABLE.
-- +goose Up
CREATE TABLE IF NOT EXISTS dashboard_sessions (
  id_hash CHAR(64) NOT NULL PRIMARY KEY,
  token_id VARCHAR(64) NOT NULL,
  created_at DATETIME(6) NOT NULL,
  last_seen_at DATETIME(6) NOT NULL,
  idle_expires_at DATETIME(6) NOT NULL,
  expires_at DATETIME(6) NOT NULL,
  CONSTRAINT dashboard_sessions_token_fk FOREIGN KEY (token_id) REFERENCES tokens (id) ON DELETE CASCADE,
  KEY dashboard_sessions_token (token_id),
  KEY dashboard_sessions_expires (expires_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
