// The in-memory store's ListTasks indexes: for each owner, its tasks in listing order, and the
// same by context, by state, and by both. A query reads the one index that matches all of its
// filters, from where its page starts, so its cost is the page it returns (and, with a time
// filter, the tasks it counts), never the tasks of other owners, contexts or states.
//
// Each index is a B+ tree (sorted-btree): a task's place changes with each status, anywhere in
// the order, and a sorted array would move every task after it.
//
// The indexes are kept for listing, which is rare, while tasks change on every call: so a change
// only notes the task (one Set entry), and the next list places the tasks noted since, each once
// at its latest place. A store never listed keeps no index at all; one whose noted tasks grow
// past a bound (listed once, then not for long) drops its indexes and builds them anew when next
// listed, so they never hold more than the store does.
import sortedBtree from 'sorted-btree';
import type { TaskRecord } from '../model/record.js';
import { compareListed, statusMsOf, type TaskListCursor, type TaskListPage, type TaskListQuery } from './task-store.js';

// The package is CommonJS with an ES-style default export: Node's import is its `module.exports`
// (the class is its `default`); Bun and Deno honour `__esModule` and import the class itself.
const BTree =
  (sortedBtree as unknown as { default?: typeof sortedBtree.default }).default ?? (sortedBtree as unknown as typeof sortedBtree.default);
type Tree = InstanceType<typeof BTree<TaskListCursor, true>>;

/** Where one task stands in the indexes: its place, and the names of the four indexes that hold it. */
interface Placement {
  readonly at: TaskListCursor;
  readonly indexes: readonly string[];
  /** The status the place was taken from: a change that keeps the status keeps the place. */
  readonly status: TaskRecord['task']['status'];
}

/** The index of one owner's tasks with these filters; undefined is "no filter" (and, for the owner, "unauthenticated"). */
function indexName(owner: string | undefined, contextId: string | undefined, state: string | undefined): string {
  return JSON.stringify([owner ?? null, contextId ?? null, state ?? null]);
}

/** Where the index reads the store: its tasks, and one task's record (undefined when it is gone). */
interface IndexedTasks {
  all(): Iterable<[string, TaskRecord]>;
  get(taskId: string): TaskRecord | undefined;
}

export class TaskListIndex {
  private readonly trees = new Map<string, Tree>();
  private readonly placements = new Map<string, Placement>();
  /** Whether the indexes hold every task (placed, or noted since); false until the first list. */
  private built = false;
  /** Tasks whose place may have changed since the indexes were brought up to date. */
  private readonly noted = new Set<string>();

  /** @param maxNoted most tasks noted between two lists before the indexes are dropped. */
  constructor(
    private readonly tasks: IndexedTasks,
    private readonly maxNoted: number,
  ) {}

  /** The task's status changed, or it came or went: its place is brought up to date at the next list. */
  note(taskId: string): void {
    if (!this.built) return;
    this.noted.add(taskId);
    if (this.noted.size > this.maxNoted) this.drop();
  }

  /**
   * Puts the task where `record` lists it. A task answered by a reply alone (its client never saw
   * a task) and a task that is gone (`undefined`) are in no index.
   */
  private place(taskId: string, record: TaskRecord | undefined): void {
    const placed = this.placements.get(taskId);
    if (placed && record && placed.status === record.task.status && !record.replied) return;
    if (placed) this.remove(taskId, placed);
    if (!record || record.replied) return;
    const { owner } = record;
    const { contextId, status } = record.task;
    const at = { statusMs: statusMsOf(record), taskId };
    const indexes = [
      indexName(owner, undefined, undefined),
      indexName(owner, contextId, undefined),
      indexName(owner, undefined, status.state),
      indexName(owner, contextId, status.state),
    ];
    for (const name of indexes) {
      let tree = this.trees.get(name);
      if (!tree) this.trees.set(name, (tree = new BTree<TaskListCursor, true>(undefined, compareListed)));
      tree.set(at, true);
    }
    this.placements.set(taskId, { at, indexes, status });
  }

  /**
   * A page of the query's index, each task read with `read` (a task it no longer has is left
   * out; `read` must not change the indexes). Stops at `pageSize` tasks, or where `query.accept`
   * says no. The records are `read`'s own.
   */
  page(query: TaskListQuery, read: (taskId: string) => TaskRecord | undefined): TaskListPage {
    this.catchUp();
    const tree = this.trees.get(indexName(query.owner, query.contextId, query.state));
    if (!tree) return { records: [], total: 0 };
    const since = query.statusAtOrAfterMs;
    const total = since === undefined ? tree.size : this.countSince(tree, since);
    const records: TaskRecord[] = [];
    let last: TaskListCursor | undefined;
    let next: TaskListCursor | undefined;
    for (const [at] of tree.entries(query.after)) {
      if (query.after && compareListed(at, query.after) === 0) continue;
      if (since !== undefined && at.statusMs < since) break;
      const record = read(at.taskId);
      if (!record) continue;
      if (records.length === query.pageSize || (query.accept && !query.accept(record))) {
        next = last;
        break;
      }
      records.push(record);
      last = at;
    }
    return next ? { records, total, next } : { records, total };
  }

  /** Places the tasks noted since the last list, or every task on the first. */
  private catchUp(): void {
    if (!this.built) {
      for (const [taskId, record] of this.tasks.all()) this.place(taskId, record);
      this.built = true;
      return;
    }
    for (const taskId of this.noted) this.place(taskId, this.tasks.get(taskId));
    this.noted.clear();
  }

  private drop(): void {
    this.trees.clear();
    this.placements.clear();
    this.noted.clear();
    this.built = false;
  }

  private countSince(tree: Tree, sinceMs: number): number {
    let count = 0;
    for (const [at] of tree.entries()) {
      if (at.statusMs < sinceMs) break;
      count++;
    }
    return count;
  }

  private remove(taskId: string, placed: Placement): void {
    for (const name of placed.indexes) {
      const tree = this.trees.get(name);
      if (!tree) continue;
      tree.delete(placed.at);
      if (tree.size === 0) this.trees.delete(name);
    }
    this.placements.delete(taskId);
  }
}
