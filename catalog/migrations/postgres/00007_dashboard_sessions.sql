-- Dashboard sessions: a sign-in with a token opens one; the browser's cookie holds its id,
-- the catalog only the id's SHA-256. A session ends at its absolute or idle expiry, on
-- sign-out, or with its token (revoked or deleted).
-- +goose Up
CREATE TABLE IF NOT EXISTS dashboard_sessions (
  id_hash CHAR(64) NOT NULL PRIMARY KEY,
  token_id VARCHAR(64) NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  last_seen_at TIMESTAMPTZ NOT NULL,
  idle_expires_at TIMESTAMPTZ NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL,
  CONSTRAINT dashboard_sessions_token_fk FOREIGN KEY (token_id) REFERENCES tokens (id) ON DELETE CASCADE
);

CREATE INDEX IF NOT EXISTS dashboard_sessions_token ON dashboard_sessions (token_id);
CREATE INDEX IF NOT EXISTS dashboard_sessions_expires ON dashboard_sessions (expires_at);
