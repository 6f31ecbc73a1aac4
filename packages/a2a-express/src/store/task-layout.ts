// How the shared stores (Redis, PostgreSQL) lay a task record out, so that one event costs the
// database the same work and bytes at the 10,000th chunk of a stream as at the 10th: the parts
// that grow (the history, each artifact's parts) are lists that an event appends to; everything
// else is a small "head" rewritten per change. Pure functions, no connection: redis.ts (keys and
// Lua scripts, redis-scripts.ts) and postgres.ts (rows) carry out what they plan.
//
// A record written before a store laid records out is one JSON value; it is read as it is and
// laid out by its next change (`laidOut` false).
import { isStatusUpdateEvent, type Artifact, type Message, type Part } from '../model/task.js';
import { copyRecord, upgradeRecord, type TaskChange, type TaskRecord } from '../model/record.js';

/**
 * What one change writes besides the head and the events: when `rewrite`, the history and every
 * artifact's parts are written anew from `ops` (the task is new, or the change is not an append);
 * otherwise `ops` only appends. Ops are flat (as Redis script arguments):
 * - `h <message>` appends a message to the history;
 * - `r <index>` empties an artifact's parts (a chunk that replaces the artifact);
 * - `p <index> <parts>` appends a JSON array of parts to an artifact's parts.
 */
export interface LayoutWrite {
  readonly rewrite: boolean;
  readonly ops: string[];
  /** The artifacts' indexes after the change, in order: which parts lists make up the record. */
  readonly artifactIndexes: string;
}

/**
 * The writes that take the stored layout from `current` to `saved`, the record after `change`.
 * `laidOut` says whether `current` is stored in this layout (false for a record of an older
 * version). Appends come from the change's events, which is what keeps their cost independent of
 * how long the task already is; anything that is not an append rewrites the lists.
 */
export function planWrite(current: TaskRecord | undefined, laidOut: boolean, change: TaskChange, saved: TaskRecord): LayoutWrite {
  const artifactIndexes = indexesOf(saved.task.artifacts);
  const before = change.record;
  const appendsOnly =
    current !== undefined && laidOut && before.task.artifacts === current.task.artifacts && extendsHistory(current.history, before.history);
  if (!appendsOnly) return { rewrite: true, ops: everything(saved), artifactIndexes };

  const ops = new OpList();
  for (let i = current.history.length; i < before.history.length; i++) ops.message(before.history[i]!);
  // Mirrors applyEvents: a status with a message adds it to the history; a chunk with `append`
  // extends the artifact at its index if there is one, and otherwise stands for it.
  const present = new Set<number>();
  for (const artifact of before.task.artifacts ?? []) present.add(artifact.index ?? 0);
  for (const event of change.events) {
    if (isStatusUpdateEvent(event)) {
      if (event.status.message) ops.message(event.status.message);
      continue;
    }
    const { artifact } = event;
    const index = artifact.index ?? 0;
    if (!(artifact.append && present.has(index))) {
      ops.replace(index);
      present.add(index);
    }
    ops.parts(index, artifact.parts);
  }
  return { rewrite: false, ops: ops.done(), artifactIndexes };
}

/** The head of a record: all of it but the history and the artifacts' parts, as JSON. */
export function headOf(record: TaskRecord): string {
  const head = copyRecord(record) as Partial<Record<keyof TaskRecord, unknown>>;
  head.history = undefined;
  const { artifacts } = record.task;
  if (artifacts != null) head.task = { ...record.task, artifacts: artifacts.map(artifactHead) };
  return JSON.stringify(head);
}

/**
 * The record from its stored pieces: the head, the history's elements, and each artifact's
 * list of part arrays (JSON), found by the artifact's index and its position in the head.
 */
export function recordFromLayout(
  head: string,
  history: readonly string[],
  partsOf: (artifactIndex: number, position: number) => readonly string[] | undefined,
): TaskRecord {
  const record = JSON.parse(head) as { task: { artifacts?: { index?: number; parts: Part[] }[] }; history: Message[] };
  record.history = history.length === 0 ? [] : (JSON.parse(`[${history.join(',')}]`) as Message[]);
  const artifacts = record.task.artifacts ?? [];
  for (let i = 0; i < artifacts.length; i++) artifacts[i]!.parts = joinParts(partsOf(artifacts[i]!.index ?? 0, i) ?? []);
  return upgradeRecord(record as unknown as TaskRecord);
}

/** A record an older release stored whole (one JSON value), in this release's model: its next change lays it out. */
export function recordStoredWhole(json: string): TaskRecord {
  return upgradeRecord(JSON.parse(json) as TaskRecord);
}

/** Whether `next` is `previous` with messages added at its end (the same objects before them). */
function extendsHistory(previous: readonly Message[], next: readonly Message[]): boolean {
  if (next === previous) return true;
  if (next.length < previous.length) return false;
  for (let i = 0; i < previous.length; i++) if (next[i] !== previous[i]) return false;
  return true;
}

/** Every write that lays `record` out from nothing. */
function everything(record: TaskRecord): string[] {
  const ops = new OpList();
  for (const message of record.history) ops.message(message);
  for (const artifact of record.task.artifacts ?? []) {
    const index = artifact.index ?? 0;
    ops.replace(index);
    ops.parts(index, artifact.parts);
  }
  return ops.done();
}

function indexesOf(artifacts: readonly Artifact[] | null | undefined): string {
  if (!artifacts || artifacts.length === 0) return '';
  return artifacts.map((artifact) => artifact.index ?? 0).join(' ');
}

/**
 * An artifact without its parts, whose place it keeps (null), so the record reads back with its
 * keys in their order. By key rather than by spread: reading `parts` of an artifact grown by the
 * in-memory merge would copy them, and the head is written for every event.
 */
function artifactHead(artifact: Artifact): Record<string, unknown> {
  const head: Record<string, unknown> = {};
  for (const key of Object.keys(artifact)) head[key] = key === 'parts' ? null : artifact[key as keyof Artifact];
  return head;
}

/** Parts stored as several JSON arrays, as one array. */
function joinParts(chunks: readonly string[]): Part[] {
  const inner: string[] = [];
  for (const chunk of chunks) if (chunk.length > 2) inner.push(chunk.slice(1, -1));
  return JSON.parse(`[${inner.join(',')}]`) as Part[];
}

/**
 * Builds the ops. Chunks appended one after another to the same artifact become one list element,
 * so a change that carries many chunks (a batch of a fast stream) costs one list element.
 */
class OpList {
  private readonly ops: string[] = [];
  /** The parts (as JSON, without brackets) of the `p` op at the end, while it may still grow. */
  private openParts: string[] | undefined;
  private openIndex: number | undefined;

  message(message: Message): void {
    this.close();
    this.ops.push('h', JSON.stringify(message));
  }

  replace(index: number): void {
    this.close();
    this.ops.push('r', String(index));
  }

  parts(index: number, parts: readonly Part[]): void {
    if (parts.length === 0) return;
    const json = JSON.stringify(parts).slice(1, -1);
    if (this.openParts && this.openIndex === index) {
      this.openParts.push(json);
      return;
    }
    this.close();
    this.openParts = [json];
    this.openIndex = index;
  }

  done(): string[] {
    this.close();
    return this.ops;
  }

  private close(): void {
    if (!this.openParts) return;
    this.ops.push('p', String(this.openIndex), `[${this.openParts.join(',')}]`);
    this.openParts = undefined;
    this.openIndex = undefined;
  }
}
