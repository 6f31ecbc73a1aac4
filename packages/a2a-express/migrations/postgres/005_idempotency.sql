-- a2a-express's PostgreSQL task store, version 5: idempotency claims (docs/idempotency.md). A send's
-- key (who sent which Idempotency-Key, or which new task's messageId) holds the task and
-- the message its first try took, until its window ends; the store's sweep deletes it after.
CREATE TABLE a2a_idempotency (
  key text PRIMARY KEY,
  claim text NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX a2a_idempotency_expiry ON a2a_idempotency (expires_at);
