-- a2a-express's PostgreSQL task store, version 2: leases, for several replicas on one database.
-- A task that is submitted or working holds a lease its process renews; a task whose lease ran
-- out lost its process, and whichever replica claims it fails it.
ALTER TABLE a2a_tasks ADD COLUMN lease_until timestamptz;
CREATE INDEX a2a_tasks_leases ON a2a_tasks (lease_until) WHERE lease_until IS NOT NULL;
