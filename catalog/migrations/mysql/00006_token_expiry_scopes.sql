-- Tokens: expiry, rotation (the replaced secret's hash and grace), scopes and rights; and the
-- bootstrap marker whose one row makes servers starting together create one first token.
-- MySQL runs each statement outside a transaction: the table is repeatable (IF NOT EXISTS),
-- and the columns and their index come in one ALTER TABLE, which applies whole or not at all.
-- +goose Up
CREATE TABLE IF NOT EXISTS token_bootstrap (
  name VARCHAR(64) NOT NULL PRIMARY KEY,
  token_id VARCHAR(64) NOT NULL,
  created_at DATETIME(6) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

ALTER TABLE tokens
  ADD COLUMN expires_at DATETIME(6) NULL,
  ADD COLUMN rotated_at DATETIME(6) NULL,
  ADD COLUMN previous_secret_hash CHAR(64) NULL,
  ADD COLUMN previous_secret_until DATETIME(6) NULL,
  ADD COLUMN scopes LONGTEXT NULL,
  ADD COLUMN rights LONGTEXT NULL,
  ADD KEY tokens_previous_secret_hash (previous_secret_hash);
