// What the page knows of tasks and of the conversation, kept apart from how it is drawn. Answers
// arrive in one shape whichever version the agent speaks (the server reads them into A2A 0.1.0's
// terms); the raw bytes of each version go to the raw log, not here.

export type Part =
  | { type: 'text'; text: string; metadata?: unknown }
  | { type: 'file'; file: { name?: string; mimeType?: string; bytes?: string; uri?: string }; metadata?: unknown }
  | { type: 'data'; data: unknown; metadata?: unknown };

export interface MessageView {
  role: 'user' | 'agent';
  parts: Part[];
}

export interface StatusView {
  state: string;
  message?: MessageView;
  timestamp?: string;
}

export interface ArtifactEvent {
  name?: string;
  description?: string;
  parts: Part[];
  /** 0.1.0 and 1.0 (as the server reads it) number artifacts; 0.3 names them by id. */
  index?: number;
  artifactId?: string;
  append?: boolean;
  lastChunk?: boolean;
}

export interface TaskView {
  id: string;
  sessionId?: string;
  status: StatusView;
  artifacts?: ArtifactEvent[];
  history?: MessageView[];
}

export type TaskEventView = { id: string; status: StatusView; final?: boolean } | { id: string; artifact: ArtifactEvent };

export interface TimelineEntry {
  time: string;
  /** `task` (the task as it stood), `status`, `artifact`, `push`. */
  kind: string;
  state?: string;
  final?: boolean;
  summary: string;
}

export interface AssembledArtifact {
  key: string;
  name?: string;
  parts: Part[];
  chunks: number;
  complete: boolean;
}

export interface TaskRecord {
  id: string;
  contextId?: string;
  state: string;
  updated: string;
  timeline: TimelineEntry[];
  artifacts: AssembledArtifact[];
  history?: MessageView[];
}

const TERMINAL = new Set(['completed', 'canceled', 'failed', 'rejected']);

/** Whether a task in this state may still change without being sent anything (it can be canceled). */
export function isRunning(state: string): boolean {
  return state === 'submitted' || state === 'working' || state === 'unknown';
}

export function isTerminal(state: string): boolean {
  return TERMINAL.has(state);
}

export function newTask(id: string, time: string): TaskRecord {
  return { id, state: 'unknown', updated: time, timeline: [], artifacts: [] };
}

/** A short line for a list of parts: their text, a file's name, a data part's keys. */
export function summarize(parts: readonly Part[] | undefined): string {
  return (parts ?? [])
    .map((part) => {
      if (part.type === 'text') return part.text;
      if (part.type === 'file')
        return `[file ${part.file.name ?? part.file.uri ?? 'unnamed'}${part.file.mimeType ? `, ${part.file.mimeType}` : ''}]`;
      return `[data ${JSON.stringify(part.data)}]`;
    })
    .join(' ');
}

/** An event of a stream (or of a resubscription) applied to its task. */
export function applyEvent(task: TaskRecord, event: TaskEventView, time: string): void {
  task.updated = time;
  if ('artifact' in event) {
    const merged = mergeArtifact(task.artifacts, event.artifact);
    const chunk = event.artifact.append ? `chunk ${merged.chunks}` : 'new';
    task.timeline.push({
      time,
      kind: 'artifact',
      summary: `${event.artifact.name ?? `artifact ${artifactKey(event.artifact)}`} (${chunk}${event.artifact.lastChunk ? ', last' : ''}): ${summarize(event.artifact.parts)}`,
    });
    return;
  }
  task.state = event.status.state;
  if (event.final || isTerminal(event.status.state)) for (const artifact of task.artifacts) artifact.complete = true;
  task.timeline.push({
    time,
    kind: 'status',
    state: event.status.state,
    ...(event.final !== undefined ? { final: event.final } : {}),
    summary: summarize(event.status.message?.parts),
  });
}

/** A whole task (an answer, or the task read by id) applied to its record: its state, artifacts and history. */
export function applyTask(task: TaskRecord, view: TaskView, time: string, kind = 'task'): void {
  task.updated = time;
  task.state = view.status.state;
  if (view.sessionId) task.contextId = view.sessionId;
  task.timeline.push({ time, kind, state: view.status.state, summary: summarize(view.status.message?.parts) });
  if (view.artifacts) {
    task.artifacts = [];
    for (const artifact of view.artifacts) mergeArtifact(task.artifacts, { ...artifact, append: false, lastChunk: true });
  }
  if (view.history) task.history = view.history;
}

/** What ties the chunks of one artifact together: its index, or (0.3) its id. */
export function artifactKey(chunk: ArtifactEvent): string {
  return chunk.artifactId ?? String(chunk.index ?? 0);
}

/** Adds a chunk to the artifact it belongs to: appended, or starting it anew. */
export function mergeArtifact(artifacts: AssembledArtifact[], chunk: ArtifactEvent): AssembledArtifact {
  const key = artifactKey(chunk);
  let artifact = artifacts.find((a) => a.key === key);
  if (!artifact || !chunk.append) {
    const fresh: AssembledArtifact = {
      key,
      ...(chunk.name !== undefined ? { name: chunk.name } : {}),
      parts: [],
      chunks: 0,
      complete: false,
    };
    if (artifact) artifacts.splice(artifacts.indexOf(artifact), 1, fresh);
    else artifacts.push(fresh);
    artifact = fresh;
  }
  for (const part of chunk.parts) {
    const last = artifact.parts.at(-1);
    // A text cut into chunks reads as the one text it was.
    if (chunk.append && last?.type === 'text' && part.type === 'text')
      artifact.parts[artifact.parts.length - 1] = { ...last, text: last.text + part.text };
    else artifact.parts.push(part);
  }
  artifact.chunks++;
  // Only a chunk that says it is the last ends an artifact (a version may leave a false flag out).
  artifact.complete = chunk.lastChunk === true;
  return artifact;
}

/** The context (0.1.0: session) an answer belongs to, read from its raw form in any version. */
export function contextOf(raw: unknown): string | undefined {
  const found = (value: unknown): string | undefined => {
    if (!value || typeof value !== 'object') return undefined;
    const v = value as Record<string, unknown>;
    if (typeof v.contextId === 'string') return v.contextId;
    if (typeof v.sessionId === 'string') return v.sessionId;
    for (const inner of ['task', 'message', 'statusUpdate', 'artifactUpdate']) {
      const context = found(v[inner]);
      if (context) return context;
    }
    return undefined;
  };
  return found(raw);
}

export interface ChatEntry {
  id: number;
  role: 'user' | 'agent' | 'error';
  time: string;
  parts: Part[];
  taskId?: string;
  state?: string;
  /** Which artifact it shows (see artifactKey), for one still arriving. */
  artifact?: string;
  complete?: boolean;
}

/**
 * The chat in the order things happened: the user's messages, and the agent's answers to each
 * (its status messages, and each artifact as one entry that grows while its chunks arrive).
 */
export class Conversation {
  readonly entries: ChatEntry[] = [];
  private next = 1;

  user(parts: Part[], time: string, taskId?: string): ChatEntry {
    return this.push({ role: 'user', time, parts, ...(taskId ? { taskId } : {}) });
  }

  error(text: string, time: string, taskId?: string): ChatEntry {
    return this.push({ role: 'error', time, parts: [{ type: 'text', text }], ...(taskId ? { taskId } : {}) });
  }

  /** A stream's event: a status message becomes an entry; an artifact's chunk joins its entry. */
  event(event: TaskEventView, time: string): void {
    if ('artifact' in event) {
      const since = this.sinceLastUser();
      const key = artifactKey(event.artifact);
      const current = since.find((e) => e.taskId === event.id && e.artifact === key);
      if (current && event.artifact.append) {
        const assembled: AssembledArtifact = { key, parts: current.parts, chunks: 1, complete: false };
        mergeArtifact([assembled], event.artifact);
        current.parts = assembled.parts;
        current.complete = assembled.complete;
        current.time = time;
      } else {
        this.push({
          role: 'agent',
          time,
          parts: [...event.artifact.parts],
          taskId: event.id,
          artifact: key,
          complete: event.artifact.lastChunk === true,
        });
      }
      return;
    }
    // The turn's end completes whatever was still arriving.
    if (event.final || isTerminal(event.status.state)) {
      for (const entry of this.sinceLastUser()) if (entry.taskId === event.id) entry.complete = true;
    }
    const message = event.status.message;
    if (message && message.parts.length > 0)
      this.push({ role: 'agent', time, parts: message.parts, taskId: event.id, state: event.status.state });
  }

  /** A whole answer (not streamed): its status message and its artifacts. */
  answer(task: TaskView, time: string): void {
    for (const artifact of task.artifacts ?? []) {
      this.push({ role: 'agent', time, parts: artifact.parts, taskId: task.id, artifact: artifactKey(artifact), complete: true });
    }
    const message = task.status.message;
    if (message && message.parts.length > 0)
      this.push({ role: 'agent', time, parts: message.parts, taskId: task.id, state: task.status.state });
  }

  clear(): void {
    this.entries.length = 0;
  }

  private sinceLastUser(): ChatEntry[] {
    const at = this.entries.findLastIndex((e) => e.role === 'user');
    return this.entries.slice(at + 1);
  }

  private push(entry: Omit<ChatEntry, 'id'>): ChatEntry {
    const added = { id: this.next++, ...entry };
    this.entries.push(added);
    return added;
  }
}
