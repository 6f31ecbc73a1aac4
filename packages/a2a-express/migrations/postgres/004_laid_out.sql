-- a2a-express's PostgreSQL task store, version 4: what grows is appended, not rewritten.
-- A task's history and its artifacts' parts are rows of their own that each change appends to,
-- and the task's row keeps the rest of the record (its "head", small), so that an event costs the
-- database the same at the 4,000th chunk of a stream as at the 10th (task-layout.ts in the
-- package). A record kept before this version stays whole in its row (laid_out false) until its
-- next change lays it out.
ALTER TABLE a2a_tasks ADD COLUMN laid_out boolean NOT NULL DEFAULT false;
-- Counts the task's changes: a process that kept the record it wrote last reads no more of it
-- while this is the revision it wrote.
ALTER TABLE a2a_tasks ADD COLUMN rev integer NOT NULL DEFAULT 0;

-- The history's messages, oldest first.
CREATE TABLE a2a_history (
  task_id text COLLATE "C" NOT NULL REFERENCES a2a_tasks (task_id) ON DELETE CASCADE,
  seq     bigint GENERATED ALWAYS AS IDENTITY,
  message json NOT NULL,
  PRIMARY KEY (task_id, seq)
);

-- Each artifact's parts, as JSON arrays (one per change that appended to it), oldest first.
CREATE TABLE a2a_parts (
  task_id        text COLLATE "C" NOT NULL REFERENCES a2a_tasks (task_id) ON DELETE CASCADE,
  artifact_index integer NOT NULL,
  seq            bigint GENERATED ALWAYS AS IDENTITY,
  parts          json NOT NULL,
  PRIMARY KEY (task_id, artifact_index, seq)
);
