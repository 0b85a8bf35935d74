-- Version 3: the principals that put each content (put_content), so that a record written by a principal
-- references only content that principal put, and a reference never resolves content its writer could not read.
CREATE TABLE content_holders (
  hash TEXT NOT NULL,
  holder TEXT NOT NULL,
  PRIMARY KEY (hash, holder));
