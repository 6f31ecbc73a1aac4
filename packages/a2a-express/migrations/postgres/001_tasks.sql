-- a2a-express's PostgreSQL task store, version 1: tasks and their numbered events.
-- Run by `migratePostgres` (a2a-express/postgres) in the store's schema, once, under an advisory
-- lock, in one transaction; recorded in a2a_migrations.

-- One row a task: the record as the kit keeps it, and beside it what ListTasks filters
-- and orders by. Task ids compare as bytes ("C"): the order is the same on every database.
CREATE TABLE a2a_tasks (
  task_id       text COLLATE "C" PRIMARY KEY,
  -- The owner's key; '' for a task created without authentication.
  owner         text NOT NULL,
  context_id    text NOT NULL,
  state         text NOT NULL,
  -- The status's time in milliseconds since the epoch: the listing order, newest first.
  status_ms     bigint NOT NULL,
  -- Whether ListTasks shows it: not a task answered by a reply alone.
  listed        boolean NOT NULL,
  last_event_id integer NOT NULL,
  -- The record as the kit keeps it: json, not jsonb, so that what a client sent keeps its every
  -- character (jsonb reorders keys and refuses \u0000).
  record        json NOT NULL,
  -- When the task reached a final state (retention counts from here); null while it can change.
  finished_at   timestamptz
);

-- ListTasks reads one owner's tasks, with or without a context and a state, from where a page starts.
CREATE INDEX a2a_tasks_by_owner ON a2a_tasks (owner, status_ms DESC, task_id DESC) WHERE listed;
CREATE INDEX a2a_tasks_by_context ON a2a_tasks (owner, context_id, status_ms DESC, task_id DESC) WHERE listed;
CREATE INDEX a2a_tasks_by_state ON a2a_tasks (owner, state, status_ms DESC, task_id DESC) WHERE listed;
CREATE INDEX a2a_tasks_by_context_state ON a2a_tasks (owner, context_id, state, status_ms DESC, task_id DESC) WHERE listed;
-- Retention deletes finished tasks by age.
CREATE INDEX a2a_tasks_finished ON a2a_tasks (finished_at) WHERE finished_at IS NOT NULL;

-- A task's events, numbered from 1 without gaps (the SSE ids), the newest maxEventsPerTask kept.
CREATE TABLE a2a_events (
  task_id  text COLLATE "C" NOT NULL REFERENCES a2a_tasks (task_id) ON DELETE CASCADE,
  event_id integer NOT NULL,
  event    json NOT NULL,
  PRIMARY KEY (task_id, event_id)
);
