-- a2a-express's PostgreSQL task store, version 7: the turn queue between front ends and workers
-- (the router's `role`, docs/replicas.md). A front end's change that queues a turn adds its row in
-- the same statement; a worker takes rows with SELECT ... FOR UPDATE SKIP LOCKED, claims each
-- turn in a2a_tasks, then deletes the row. A row taken and not deleted within a lease (its worker
-- died before it claimed the turn) is taken again by another.
CREATE TABLE a2a_turn_queue (
  entry bigserial PRIMARY KEY,
  task_id text NOT NULL,
  turn integer NOT NULL,
  attempt integer NOT NULL,
  queued_at timestamptz NOT NULL DEFAULT now(),
  taken_by text,
  taken_at timestamptz
);

-- The workers that said they are alive, until when: a front end with none is not ready.
CREATE TABLE a2a_workers (
  worker text PRIMARY KEY,
  alive_until timestamptz NOT NULL
);
