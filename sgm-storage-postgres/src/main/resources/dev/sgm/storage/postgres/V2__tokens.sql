-- Version 2: access tokens, by the hashes of their secrets only, shared by every node of the database
-- (a token made through one node authenticates at every other; a revocation reaches them all).
CREATE TABLE access_tokens (
  id TEXT PRIMARY KEY,
  principal TEXT NOT NULL,
  hash BYTEA NOT NULL,
  grants TEXT NOT NULL,
  created_us BIGINT NOT NULL,
  expires_us BIGINT,
  revoked_us BIGINT);
-- The change log is pruned by the time of its entries (the change feed's retention window).
CREATE INDEX changes_by_time ON changes(at_us);
