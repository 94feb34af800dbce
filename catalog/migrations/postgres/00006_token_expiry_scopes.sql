-- Tokens: expiry, rotation (the replaced secret's hash and grace), scopes and rights; and the
-- bootstrap marker whose one row makes servers starting together create one first token.
-- +goose Up
CREATE TABLE IF NOT EXISTS token_bootstrap (
  name VARCHAR(64) NOT NULL PRIMARY KEY,
  token_id VARCHAR(64) NOT NULL,
  created_at TIMESTAMPTZ NOT NULL
);

ALTER TABLE tokens
  ADD COLUMN IF NOT EXISTS expires_at TIMESTAMPTZ NULL,
  ADD COLUMN IF NOT EXISTS rotated_at TIMESTAMPTZ NULL,
  ADD COLUMN IF NOT EXISTS previous_secret_hash CHAR(64) NULL,
  ADD COLUMN IF NOT EXISTS previous_secret_until TIMESTAMPTZ NULL,
  ADD COLUMN IF NOT EXISTS scopes TEXT NULL,
  ADD COLUMN IF NOT EXISTS rights TEXT NULL;

CREATE INDEX IF NOT EXISTS tokens_previous_secret_hash ON tokens (previous_secret_hash);
