// a2a-express/store: the task store layer, for apps that pick or write a store. The router
// makes an InMemoryTaskStore when it is given none; RedisTaskStore is in 'a2a-express/redis'.
export { InMemoryTaskStore, type InMemoryTaskStoreOptions } from './in-memory.js';
export {
  hasTurnQueue,
  isSharedTaskStore,
  QUEUED_HOLDER,
  type QueuedTurn,
  type SharedTaskStore,
  type TaskStore,
  type TurnEnded,
  type TurnQueue,
  type TurnQueueFigures,
} from './task-store.js';
export { applyEvents, mergeArtifact, settleChange, type ArtifactMerge } from '../model/fold.js';
// What `get` and `eventsAfter` hand readers: a detached JSON copy, so that changing it changes
// nothing stored. Published as `ownCopy` since the store layer's first release: the kit's own
// name for it is `jsonCopy`.
export { jsonCopy as ownCopy } from '../model/plain-json.js';
export {
  taskSnapshot,
  upgradeRecord,
  type EventListener,
  type StoredEvent,
  type TaskChange,
  type TaskHead,
  type TaskRecord,
  type TaskUpdateOptions,
  type TaskUpdateResult,
} from '../model/record.js';
// The kit's task model, which records and events hold.
export type {
  StoredPushConfig,
  Task,
  TaskArtifactUpdateEvent,
  TaskEvent,
  TaskState,
  TaskStatus,
  TaskStatusUpdateEvent,
} from '../model/task.js';
