-- a2a-express's PostgreSQL task store, version 6: which process runs a task's turn.
-- With `onInterrupted: 'resume'`, a replica that takes over a turn whose process was lost writes
-- its own id here with the turn's next attempt; a lease is then renewed only by the process named
-- (null: by any, as before), so a process that lost a turn cannot keep it alive.
ALTER TABLE a2a_tasks ADD COLUMN holder text;
