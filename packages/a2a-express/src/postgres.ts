// a2a-express/postgres: the task store on PostgreSQL. A subpath of its own so that pg (an optional
// peer dependency) is loaded only by the apps that keep their tasks there.
export { migratePostgres, PostgresTaskStore, type PostgresTaskStoreOptions } from './store/postgres.js';
