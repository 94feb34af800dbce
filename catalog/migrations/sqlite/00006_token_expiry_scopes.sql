-- Tokens: expiry, rotation (the replaced secret's hash and grace), scopes and rights; and the
-- bootstrap marker whose one row makes servers starting together create one first token.
-- +goose Up
CREATE TABLE IF NOT EXISTS token_bootstrap (
  name VARCHAR(64) NOT NULL PRIMARY KEY,
  token_id VARCHAR(64) NOT NULL,
  created_at DATETIME NOT NULL
);

ALTER TABLE tokens ADD COLUMN expires_at DATETIME NULL;

ALTER TABLE tokens ADD COLUMN rotated_at DATETIME NULL;

ALTER TABLE tokens ADD COLUMN previous_secret_hash CHAR(64) NULL;

ALTER TABLE tokens ADD COLUMN previous_secret_until DATETIME NULL;

ALTER TABLE tokens ADD COLUMN scopes TEXT NULL;

ALTER TABLE tokens ADD COLUMN rights TEXT NULL;

CREATE INDEX IF NOT EXISTS tokens_previous_secret_hash ON tokens (previous_secret_hash);
