-- a2a-express's PostgreSQL task store, version 3: push configs sealed at rest.
-- A store given a pushConfigKey keeps a task's push configs here, encrypted (AES-256-GCM, the
-- task id bound in), and not in the record; without a key they stay in the record and this is null.
ALTER TABLE a2a_tasks ADD COLUMN push_configs text;
