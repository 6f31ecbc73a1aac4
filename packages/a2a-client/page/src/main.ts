// The inspector page: connects to an agent through the inspector's server, shows its cards and
// their problems, chats with it, and shows every task's timeline, the raw exchanges and the push
// notifications that arrive. Credentials stay in this page's memory: sent with each call, never
// stored.
import { ApiError, eventsPath, getJson, lines, post, useSession } from './api.js';
import { curlOf, grpcurlOf, type RecordedRequest } from './curl.js';
import { byId, clock, fill, h } from './dom.js';
import { jsonTree, type Problem, problemText } from './json-view.js';
import {
  applyEvent,
  applyTask,
  Conversation,
  contextOf,
  isRunning,
  newTask,
  type Part,
  summarize,
  type TaskEventView,
  type TaskRecord,
  type TaskView,
} from './model.js';

interface OfferedInterface {
  protocol: '0.1.0' | '0.3' | '1.0';
  binding: string;
  url: string;
  supported: boolean;
}

interface CardReport {
  protocol: string;
  url: string;
  card: Record<string, unknown>;
  problems: Problem[];
  /** Its signatures, checked against the agent's own JWKS (src/inspector/discovery.ts). */
  signature?: { signed: boolean; valid: boolean; kid?: string; reason?: string };
}

interface Discovery {
  base: string;
  cards: CardReport[];
  interfaces: OfferedInterface[];
  failures: { url: string; reason: string }[];
}

interface CallError {
  name: string;
  message: string;
  code?: number;
  data?: unknown;
}

type RawEntry = { type: string; exchange: number; time: string } & Record<string, unknown>;

/** What the inspector's `a2a check` answers (`CheckReport` in src/check/run.ts), as far as the page shows it. */
interface CheckReport {
  agent: string;
  results: {
    id: string;
    title: string;
    version: string;
    binding: string;
    section: string;
    level: string;
    outcome: 'passed' | 'failed' | 'skipped';
    reason?: string;
    exchanges: { request: { method: string; url: string }; logId?: number }[];
  }[];
  counts: { passed: number; failed: number; skipped: number };
  tasks: { cleanup: string }[];
  mustFailed: boolean;
  /** What the check left out: interfaces past the cap, checks past the deadline. */
  limits: string[];
  /** Origins the cards name that were sent no credentials. */
  credentialsWithheld: string[];
}

const state = {
  session: '',
  webhookUrl: '',
  discovery: undefined as Discovery | undefined,
  tasks: new Map<string, TaskRecord>(),
  selected: undefined as string | undefined,
  /** Whether the Check tab's run is under way. */
  checking: false,
  /** The task an answer continues (it asked for input). */
  continuing: undefined as string | undefined,
  contextId: undefined as string | undefined,
  running: undefined as { abort: AbortController; taskId?: string } | undefined,
  conversation: new Conversation(),
  pushToken: randomToken(),
  pushCount: 0,
};

const now = () => new Date().toISOString();

function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(18));
  return btoa(String.fromCharCode(...bytes)).replace(/[+/=]/g, '');
}

// ---- connecting ------------------------------------------------------------------------------

/** The headers the credentials make; nothing when none is given. */
function credentials(): Record<string, string> {
  const kind = byId<HTMLSelectElement>('auth-kind').value;
  const value = byId<HTMLInputElement>('auth-value').value.trim();
  if (!value || kind === 'none') return {};
  if (kind === 'bearer') return { Authorization: `Bearer ${value}` };
  const header = byId<HTMLInputElement>('auth-header').value.trim() || 'X-API-Key';
  return { [header]: value };
}

/** The interface chosen, if the inspector speaks it (one it does not is listed, never used). */
function chosenInterface(): OfferedInterface | undefined {
  const select = byId<HTMLSelectElement>('interface');
  const chosen = state.discovery?.interfaces[Number(select.value)];
  return chosen?.supported ? chosen : undefined;
}

function agentOf(): { url: string; protocol: string; binding: string } {
  const chosen = chosenInterface();
  if (!chosen || !state.discovery) throw new ApiError('connect to an agent first');
  return { url: state.discovery.base, protocol: chosen.protocol, binding: chosen.binding };
}

/** What an operation on the agent answers: `ok` and its result, or the agent's error. */
type Answer<T> = { ok: boolean; raw?: unknown; error?: CallError } & T;

/** One operation on the chosen agent, through the inspector, with the page's credentials. */
function callAgent<T>(op: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<Answer<T>> {
  return post<Answer<T>>('api/call', { agent: agentOf(), headers: credentials(), op, args }, signal);
}

/** A streaming operation on the chosen agent (a message streamed, a task followed): its lines. */
function streamAgent(op: string, args: Record<string, unknown>, signal: AbortSignal): AsyncGenerator<Record<string, unknown>> {
  return lines('api/call', { agent: agentOf(), headers: credentials(), op, args }, signal);
}

function say(id: string, text: string, kind: 'info' | 'error' = 'info'): void {
  const element = byId(id);
  element.textContent = text;
  element.dataset.kind = kind;
}

async function connect(url: string): Promise<void> {
  say('connection-status', `Reading the cards of ${url}…`);
  for (const stream of following.values()) stream.abort();
  following.clear();
  state.discovery = undefined;
  try {
    state.discovery = await post<Discovery>('api/discover', { url, headers: credentials() });
  } catch (error) {
    say('connection-status', (error as Error).message, 'error');
    renderCards();
    return;
  }
  const { cards, interfaces, failures } = state.discovery;
  const select = byId<HTMLSelectElement>('interface');
  const preference = (i: OfferedInterface) =>
    (i.supported ? 0 : 10) + ['1.0', '0.3', '0.1.0'].indexOf(i.protocol) * 2 + (i.binding === 'JSONRPC' ? 0 : 1);
  const best = interfaces.map((i, at) => [preference(i), at] as const).sort((a, b) => a[0] - b[0])[0]?.[1];
  fill(
    select,
    interfaces.map((i, at) =>
      h(
        'option',
        { value: String(at), disabled: !i.supported, selected: at === best },
        `A2A ${i.protocol} · ${bindingName(i.binding)}${i.supported ? '' : ' (not spoken here)'}`,
      ),
    ),
  );
  select.disabled = interfaces.length === 0;
  byId<HTMLInputElement>('jwks-url').value = `${state.discovery.base}/.well-known/jwks.json`;
  const problems = cards.reduce((n, c) => n + c.problems.length, 0);
  if (cards.length === 0) {
    say(
      'connection-status',
      `No agent card found at ${state.discovery.base}${failures.length ? `: ${failures.map((f) => `${f.url}: ${f.reason}`).join('; ')}` : ''}`,
      'error',
    );
  } else {
    const versions = cards.map((c) => c.protocol).join(', ');
    say(
      'connection-status',
      `Connected: ${cards.length === 1 ? 'one card' : `${cards.length} cards`} (A2A ${versions}), ${problems === 0 ? 'no problems' : `${problems} problem${problems === 1 ? '' : 's'}`}.`,
      problems ? 'error' : 'info',
    );
  }
  renderCards();
  updateControls();
}

function bindingName(binding: string): string {
  return binding === 'HTTP+JSON' ? 'HTTP+JSON (REST)' : binding === 'JSONRPC' ? 'JSON-RPC' : binding === 'GRPC' ? 'gRPC' : binding;
}

/** Whether the card is signed, and by which key, or why its signature is not valid (spec 1.0 8.4). */
function signatureBadge(check: CardReport['signature']): Node | null {
  if (!check) return null;
  if (!check.signed) return h('span', { class: 'badge signature', title: 'the card carries no signature' }, 'unsigned');
  if (check.valid)
    return h(
      'span',
      { class: 'badge good signature', title: 'checked against the agent’s /.well-known/jwks.json' },
      `signed, valid · ${check.kid ?? '?'}`,
    );
  return h('span', { class: 'badge bad signature', title: check.reason ?? '' }, `signed, not valid${check.kid ? ` · ${check.kid}` : ''}`);
}

function renderCards(): void {
  const container = byId('cards');
  const discovery = state.discovery;
  if (!discovery) {
    fill(container);
    return;
  }
  const chosen = chosenInterface();
  fill(
    container,
    discovery.cards.map((report, at) => {
      const card = report.card ?? {};
      const capabilities = (card.capabilities ?? {}) as Record<string, unknown>;
      const skills = Array.isArray(card.skills) ? (card.skills as Record<string, unknown>[]) : [];
      const prefix = `card-${at}-problem`;
      return h(
        'details',
        { class: 'card', open: chosen?.protocol === report.protocol || discovery.cards.length === 1, 'data-protocol': report.protocol },
        h(
          'summary',
          null,
          `A2A ${report.protocol} card `,
          report.problems.length
            ? h('span', { class: 'badge bad' }, `${report.problems.length} problem${report.problems.length === 1 ? '' : 's'}`)
            : h('span', { class: 'badge good' }, 'valid'),
          signatureBadge(report.signature),
        ),
        report.signature?.signed && !report.signature.valid
          ? h('p', { class: 'bad signature-reason' }, report.signature.reason ?? '')
          : null,
        h('p', { class: 'muted' }, report.url),
        h('h3', null, String(card.name ?? '(no name)'), card.version ? h('span', { class: 'muted' }, ` v${String(card.version)}`) : null),
        card.description ? h('p', null, String(card.description)) : null,
        h(
          'p',
          { class: 'chips' },
          Object.entries(capabilities)
            .filter(([, on]) => on === true)
            .map(([name]) => h('span', { class: 'chip' }, name)),
        ),
        skills.length
          ? h(
              'ul',
              { class: 'skills' },
              skills.map((s) =>
                h('li', null, h('strong', null, String(s.name ?? s.id ?? 'skill')), s.description ? ` — ${String(s.description)}` : ''),
              ),
            )
          : null,
        report.problems.length
          ? h(
              'section',
              { class: 'problems', 'aria-label': `Problems of the ${report.protocol} card` },
              h('h4', null, 'Problems'),
              h(
                'ul',
                null,
                report.problems.map((problem) =>
                  h(
                    'li',
                    null,
                    h(
                      'button',
                      {
                        type: 'button',
                        class: 'link',
                        onclick: () => {
                          const target = document.querySelector<HTMLElement>(
                            `.card[data-protocol="${report.protocol}"] .json-line.problem[data-pointer="${CSS.escape(nearest(report.card, problem.path))}"]`,
                          );
                          target?.scrollIntoView({ block: 'center' });
                          target?.focus();
                        },
                      },
                      h('code', null, problem.path || '(the card)'),
                    ),
                    ` ${problemText(problem)}`,
                  ),
                ),
              ),
            )
          : null,
        h(
          'details',
          { class: 'json', open: report.problems.length > 0 },
          h('summary', null, 'The card as served'),
          jsonTree(report.card, report.problems, prefix),
        ),
      );
    }),
  );
}

/** The deepest pointer of `path` that names a value of `value` (where its problem is drawn). */
function nearest(value: unknown, path: string): string {
  let at = '';
  let current = value;
  for (const raw of path.split('/').slice(1)) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (!current || typeof current !== 'object' || !(key in current)) break;
    current = (current as Record<string, unknown>)[key];
    at += `/${raw}`;
  }
  return at;
}

// ---- chatting --------------------------------------------------------------------------------

function taskRecord(id: string): TaskRecord {
  let task = state.tasks.get(id);
  if (!task) {
    task = newTask(id, now());
    state.tasks.set(id, task);
  }
  return task;
}

async function readFiles(input: HTMLInputElement): Promise<Part[]> {
  const parts: Part[] = [];
  for (const file of Array.from(input.files ?? [])) {
    const bytes = new Uint8Array(await file.arrayBuffer());
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    parts.push({ type: 'file', file: { name: file.name, mimeType: file.type || 'application/octet-stream', bytes: btoa(binary) } });
  }
  return parts;
}

async function composeParts(): Promise<Part[] | undefined> {
  const parts: Part[] = [];
  const text = byId<HTMLTextAreaElement>('message-text').value;
  if (text.trim() !== '') parts.push({ type: 'text', text });
  parts.push(...(await readFiles(byId<HTMLInputElement>('message-files'))));
  const data = byId<HTMLTextAreaElement>('message-data').value.trim();
  if (data !== '') {
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch (error) {
      say('composer-error', `The data part is not JSON: ${(error as Error).message}`, 'error');
      return undefined;
    }
    parts.push({ type: 'data', data: value });
  }
  return parts;
}

async function send(): Promise<void> {
  say('composer-error', '');
  // Nothing is sent (nor shown in the chat) before there is an agent to send it to.
  try {
    agentOf();
  } catch (error) {
    say('composer-error', (error as Error).message, 'error');
    return;
  }
  const parts = await composeParts();
  if (!parts) return;
  // An empty message is the user's to send: some agents ask for input when they get one.
  if (parts.length === 0) parts.push({ type: 'text', text: '' });
  const taskId = state.continuing;
  state.conversation.user(parts, now(), taskId);
  byId<HTMLTextAreaElement>('message-text').value = '';
  byId<HTMLInputElement>('message-files').value = '';
  byId<HTMLTextAreaElement>('message-data').value = '';
  const args = {
    message: { role: 'user', parts },
    ...(taskId ? { taskId } : {}),
    ...(state.contextId ? { contextId: state.contextId } : {}),
  };
  const abort = new AbortController();
  state.running = { abort, ...(taskId ? { taskId } : {}) };
  if (taskId) select(taskId);
  renderChat();
  updateControls();
  const streamed = byId<HTMLInputElement>('stream').checked && streams();
  try {
    if (streamed) {
      await follow(streamAgent('stream', args, abort.signal), true);
    } else {
      const answer = await callAgent<{ task?: TaskView }>('send', args, abort.signal);
      if (!answer.ok || !answer.task) return failed(answer.error);
      const task = answer.task;
      state.contextId = task.sessionId ?? contextOf(answer.raw) ?? state.contextId;
      if (!task.id) {
        // A message alone, outside any task.
        state.conversation.answer(task, now());
        return;
      }
      const record = taskRecord(task.id);
      applyTask(record, task, now(), 'answer');
      state.conversation.answer(task, now());
      select(task.id);
      turnEnded(record);
    }
  } catch (error) {
    if (!abort.signal.aborted) failed({ name: 'Error', message: (error as Error).message });
  } finally {
    state.running = undefined;
    renderChat();
    renderTimeline();
    updateControls();
  }
}

/** Reads a stream of events into their tasks (and the chat, for a message sent from here). */
async function follow(stream: AsyncIterable<Record<string, unknown>>, chat: boolean): Promise<void> {
  for await (const line of stream) {
    if (line.error) {
      failed(line.error as CallError);
      continue;
    }
    const received = line.event as { raw: unknown; event: TaskEventView } | undefined;
    if (!received) continue;
    const { event, raw } = received;
    const id = event.id || state.running?.taskId;
    if (!id) {
      // An answer that is a message alone (0.3 and 1.0 allow it) belongs to no task: the chat shows it.
      if (chat) state.conversation.event(event, now());
      renderSoon();
      continue;
    }
    // A task followed (opened by id) is no part of the conversation: it leaves the chat's turn alone.
    if (chat && state.running) state.running.taskId = id;
    if (chat) state.contextId = contextOf(raw) ?? state.contextId;
    const record = taskRecord(id);
    const time = now();
    applyEvent(record, event, time);
    if (chat) state.conversation.event(event, time);
    if (state.selected !== id) select(id);
    if (chat && 'status' in event) turnEnded(record);
    renderSoon();
  }
}

let renderPending: ReturnType<typeof setTimeout> | undefined;

/**
 * Draws the chat, the timeline and the controls once for the events of the next few
 * milliseconds: a stream of thousands of events would otherwise redraw them thousands of times.
 */
function renderSoon(): void {
  if (renderPending !== undefined) return;
  renderPending = setTimeout(() => {
    renderPending = undefined;
    renderChat();
    renderTimeline();
    updateControls();
  }, 30);
}

/** After a turn: an agent that asked for input gets the next message on the same task. */
function turnEnded(task: TaskRecord): void {
  state.continuing = task.state === 'input-required' ? task.id : undefined;
}

function failed(error: CallError | undefined): void {
  const text = error ? `${error.name}${error.code !== undefined ? ` ${error.code}` : ''}: ${error.message}` : 'the call failed';
  state.conversation.error(text, now(), state.running?.taskId);
  renderChat();
}

function streams(): boolean {
  const chosen = chosenInterface();
  const card = state.discovery?.cards.find((c) => c.protocol === chosen?.protocol)?.card;
  return (card?.capabilities as { streaming?: unknown } | undefined)?.streaming === true;
}

/** The task Cancel is about: the one the message under way went to (none yet: nothing to cancel), else the one shown. */
function cancelable(): string | undefined {
  return state.running ? state.running.taskId : state.selected;
}

async function cancelTask(): Promise<void> {
  const id = cancelable();
  if (!id) return;
  const answer = await callAgent<{ task?: TaskView }>('cancel', { taskId: id });
  if (!answer.ok || !answer.task) return failed(answer.error);
  applyTask(taskRecord(id), answer.task, now(), 'canceled');
  if (state.continuing === id) state.continuing = undefined;
  renderTimeline();
  updateControls();
}

function newConversation(): void {
  state.running?.abort.abort();
  state.conversation.clear();
  state.continuing = undefined;
  state.contextId = undefined;
  renderChat();
  updateControls();
}

function partView(part: Part): HTMLElement {
  if (part.type === 'text') return h('p', { class: 'text' }, part.text);
  if (part.type === 'data') return h('pre', { class: 'data' }, JSON.stringify(part.data, null, 2));
  const { file } = part;
  const label = `${file.name ?? 'file'}${file.mimeType ? ` (${file.mimeType})` : ''}`;
  if (file.bytes !== undefined) {
    return h(
      'p',
      { class: 'file' },
      h(
        'a',
        { href: `data:${file.mimeType ?? 'application/octet-stream'};base64,${file.bytes}`, download: file.name ?? 'file' },
        `📎 ${label}`,
      ),
    );
  }
  return h('p', { class: 'file' }, `📎 ${label} ${file.uri ?? ''}`);
}

function renderChat(): void {
  const log = byId('chat-log');
  fill(
    log,
    state.conversation.entries.map((entry) =>
      h(
        'li',
        { class: `bubble ${entry.role}`, 'data-task': entry.taskId ?? null, 'data-state': entry.state ?? null },
        h(
          'div',
          { class: 'meta' },
          entry.role === 'user' ? 'You' : entry.role === 'agent' ? 'Agent' : 'Error',
          ' · ',
          clock(entry.time),
          entry.state ? h('span', { class: `state ${entry.state}` }, entry.state) : null,
          entry.artifact !== undefined && !entry.complete ? h('span', { class: 'muted' }, ' · streaming…') : null,
        ),
        entry.parts.map(partView),
      ),
    ),
  );
  log.scrollTop = log.scrollHeight;
  say('continuing', state.continuing ? `Your next message answers task ${state.continuing}, which asked for input.` : '');
}

function updateControls(): void {
  const connected = chosenInterface() !== undefined;
  const busy = state.running !== undefined;
  byId<HTMLButtonElement>('send').disabled = !connected || busy;
  const current = cancelable();
  const record = current ? state.tasks.get(current) : undefined;
  byId<HTMLButtonElement>('cancel').disabled = !connected || !record || !(isRunning(record.state) || record.state === 'input-required');
  const protocol = chosenInterface()?.protocol;
  byId<HTMLButtonElement>('list-tasks').disabled = protocol !== '1.0';
  say('list-note', connected && protocol !== '1.0' ? `A2A ${protocol} has no way to list tasks: open one by its id.` : '');
  byId<HTMLButtonElement>('open-task').disabled = !connected;
  byId<HTMLButtonElement>('register-push').disabled = !connected || !state.selected;
  byId<HTMLButtonElement>('run-check').disabled = !state.discovery || state.discovery.cards.length === 0 || state.checking;
  const stream = byId<HTMLInputElement>('stream');
  stream.disabled = !streams();
}

// ---- tasks -----------------------------------------------------------------------------------

function select(id: string): void {
  state.selected = id;
  renderTimeline();
  updateControls();
}

async function openTask(id: string): Promise<void> {
  say('tasks-status', `Reading task ${id}…`);
  const answer = await callAgent<{ task?: TaskView }>('get', { taskId: id, historyLength: 100 });
  if (!answer.ok || !answer.task) {
    say('tasks-status', `Task ${id}: ${answer.error?.message ?? 'not read'}`, 'error');
    return;
  }
  const record = taskRecord(answer.task.id);
  applyTask(record, answer.task, now(), 'task');
  select(record.id);
  say('tasks-status', `Task ${record.id}: ${record.state}.`);
  // A task still at work is followed: its events arrive as it goes on (once: opened again, the
  // stream before is closed).
  if (isRunning(record.state) && streams()) {
    say('tasks-status', `Task ${record.id} is ${record.state}: following it.`);
    following.get(record.id)?.abort();
    const abort = new AbortController();
    following.set(record.id, abort);
    try {
      await follow(streamAgent('resubscribe', { taskId: record.id }, abort.signal), false);
      say('tasks-status', `Task ${record.id}: ${record.state}.`);
    } catch (error) {
      if (!abort.signal.aborted) say('tasks-status', (error as Error).message, 'error');
    } finally {
      if (following.get(record.id) === abort) following.delete(record.id);
    }
  }
}

/** How many of a task's events the timeline draws (the newest). */
const TIMELINE_SHOWN = 500;

/** The streams of the tasks being followed, by task. */
const following = new Map<string, AbortController>();

async function listTasks(): Promise<void> {
  say('tasks-status', 'Listing tasks…');
  const answer = await callAgent<{ tasks?: TaskView[] }>('list', {});
  if (!answer.ok || !answer.tasks) {
    say('tasks-status', answer.error?.message ?? 'the agent did not list its tasks', 'error');
    return;
  }
  for (const task of answer.tasks) {
    const record = taskRecord(task.id);
    if (record.timeline.length === 0) applyTask(record, task, now(), 'listed');
    else record.state = task.status.state;
  }
  listed = answer.tasks.map((t) => t.id);
  say('tasks-status', `${answer.tasks.length} task${answer.tasks.length === 1 ? '' : 's'}.`);
  renderTaskList();
}

let listed: string[] = [];

function renderTaskList(): void {
  const ids = [...new Set([...listed, ...state.tasks.keys()])];
  fill(
    byId('task-list'),
    ids.map((id) => {
      const record = state.tasks.get(id);
      return h(
        'li',
        null,
        h(
          'button',
          {
            type: 'button',
            class: 'link',
            'aria-current': state.selected === id ? 'true' : null,
            onclick: () => void openTask(id).catch(report),
          },
          h('code', null, id),
        ),
        record ? h('span', { class: `state ${record.state}` }, record.state) : null,
      );
    }),
  );
}

function renderTimeline(): void {
  // The list shows each task's state too: it changes with the timeline.
  renderTaskList();
  const panel = byId('timeline');
  const task = state.selected ? state.tasks.get(state.selected) : undefined;
  if (!task) {
    fill(panel, h('p', { class: 'muted' }, 'Send a message or open a task to see its timeline.'));
    return;
  }
  // The newest events only: a long stream's every chunk would make the page slow to draw.
  const hidden = Math.max(0, task.timeline.length - TIMELINE_SHOWN);
  fill(
    panel,
    h('h3', null, 'Task ', h('code', null, task.id), ' ', h('span', { class: `state ${task.state}` }, task.state)),
    task.contextId ? h('p', { class: 'muted' }, `Context ${task.contextId}`) : null,
    hidden > 0 ? h('p', { class: 'muted timeline-hidden' }, `${hidden.toLocaleString('en-US')} earlier events not shown`) : null,
    h(
      'ol',
      { class: 'timeline', 'aria-label': 'Events in order' },
      task.timeline
        .slice(hidden)
        .map((entry) =>
          h(
            'li',
            { 'data-kind': entry.kind },
            h('time', null, clock(entry.time)),
            h('span', { class: 'kind' }, entry.kind),
            entry.state ? h('span', { class: `state ${entry.state}` }, entry.state) : null,
            entry.final ? h('span', { class: 'badge' }, 'final') : null,
            entry.summary ? h('span', { class: 'summary' }, entry.summary) : null,
          ),
        ),
    ),
    task.artifacts.length
      ? h(
          'section',
          { 'aria-label': 'Artifacts' },
          h('h4', null, 'Artifacts'),
          task.artifacts.map((artifact) =>
            h(
              'div',
              { class: 'artifact', 'data-key': artifact.key },
              h(
                'div',
                { class: 'meta' },
                `${artifact.name ?? (/^\d+$/.test(artifact.key) ? `artifact ${artifact.key}` : artifact.key)} · ${artifact.chunks} chunk${artifact.chunks === 1 ? '' : 's'}${artifact.complete ? '' : ' · arriving'}`,
              ),
              artifact.parts.map(partView),
            ),
          ),
        )
      : null,
    task.history
      ? h(
          'section',
          { 'aria-label': 'History' },
          h('h4', null, 'History'),
          task.history.length
            ? h(
                'ol',
                { class: 'history' },
                task.history.map((m) => h('li', null, h('strong', null, m.role === 'user' ? 'User: ' : 'Agent: '), summarize(m.parts))),
              )
            : h('p', { class: 'muted' }, 'No messages kept.'),
        )
      : null,
  );
}

// ---- the raw log -----------------------------------------------------------------------------

function headerList(headers: Record<string, string>): HTMLElement {
  return h(
    'dl',
    { class: 'headers' },
    Object.entries(headers).map(([name, value]) => [h('dt', null, name), h('dd', null, value)]),
  );
}

function addRaw(entry: RawEntry): void {
  const log = byId('raw-log');
  const id = `exchange-${entry.exchange}`;
  let item = document.getElementById(id);
  if (entry.type === 'request' || !item) {
    item = h('li', { id, class: 'exchange' });
    log.appendChild(item);
  }
  const time = h('time', null, clock(entry.time));
  if (entry.type === 'request') {
    const request = entry as unknown as RecordedRequest;
    const command = request.grpc ? grpcurlOf(request) : curlOf(request);
    item.append(
      h('div', { class: 'line request' }, time, h('strong', null, `→ ${request.method} `), request.url),
      h('details', null, h('summary', null, 'Request headers'), headerList(request.headers)),
      request.body !== undefined ? h('pre', { class: 'body' }, request.body) : '',
      h(
        'div',
        { class: 'row' },
        h(
          'button',
          { type: 'button', class: 'copy-curl', 'data-curl': command, onclick: () => void copy(command) },
          request.grpc ? 'Copy as grpcurl' : 'Copy as curl',
        ),
      ),
    );
  } else if (entry.type === 'response') {
    item.append(
      h(
        'div',
        // A gRPC call's status is its code: anything but 0 (OK) failed.
        { class: `line response ${(entry.grpc ? Number(entry.status) !== 0 : Number(entry.status) >= 400) ? 'bad' : ''}` },
        time,
        h('strong', null, `← ${String(entry.status)} ${String(entry.statusText ?? '')}`),
        entry.stream ? ' (event stream)' : '',
      ),
      h('details', null, h('summary', null, 'Response headers'), headerList(entry.headers as Record<string, string>)),
      typeof entry.body === 'string' && entry.body !== '' ? h('pre', { class: 'body' }, entry.body) : '',
    );
  } else if (entry.type === 'event') {
    item.append(h('div', { class: 'line event' }, time, h('pre', { class: 'sse' }, String(entry.text))));
  } else if (entry.type === 'end') {
    item.append(h('div', { class: 'line muted' }, time, 'stream ended'));
  } else if (entry.type === 'failure') {
    item.append(h('div', { class: 'line bad' }, time, `✗ ${String(entry.message)}`));
  }
  log.scrollTop = log.scrollHeight;
}

function addDeparture(departure: { time: string; what: string; issues: Problem[] }): void {
  byId('raw-log').appendChild(
    h(
      'li',
      { class: 'departure' },
      h('div', { class: 'line bad' }, h('time', null, clock(departure.time)), `⚠ The ${departure.what} departs from the A2A schema:`),
      h(
        'ul',
        null,
        departure.issues.map((i) => h('li', null, h('code', null, i.path || '(root)'), ` ${problemText(i)}`)),
      ),
    ),
  );
}

async function copy(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    say('copy-status', 'Copied the curl command.');
  } catch {
    // Without clipboard access (a page served over plain http from another host), the command is shown to copy by hand.
    window.prompt('Copy the curl command:', text);
  }
}

// ---- check -------------------------------------------------------------------------------------

async function runChecks(): Promise<void> {
  if (!state.discovery) return;
  state.checking = true;
  updateControls();
  fill(byId('check-report'));
  say('check-status', `Checking ${state.discovery.base}…`);
  try {
    const report = await post<CheckReport>('api/check', {
      url: state.discovery.base,
      headers: credentials(),
      message: byId<HTMLInputElement>('check-message').value,
      slowMessage: byId<HTMLInputElement>('check-slow-message').value,
    });
    const { passed, failed, skipped } = report.counts;
    say(
      'check-status',
      `${passed} passed, ${failed} failed, ${skipped} skipped${report.mustFailed ? ' (a MUST failed)' : ''}; ${report.tasks.length} tasks started.`,
      report.mustFailed ? 'error' : undefined,
    );
    renderCheckReport(report);
  } catch (error) {
    say('check-status', (error as Error).message, 'error');
  } finally {
    state.checking = false;
    updateControls();
  }
}

/** The report grouped by version and binding; a failure with its reason and links to its exchanges in the raw log. */
function renderCheckReport(report: CheckReport): void {
  const groups = new Map<string, CheckReport['results']>();
  for (const result of report.results) {
    const name = result.binding === 'card' ? `A2A ${result.version}, card` : `A2A ${result.version}, ${bindingName(result.binding)}`;
    groups.set(name, [...(groups.get(name) ?? []), result]);
  }
  const mark = { passed: '✓', failed: '✗', skipped: '–' };
  const notes = [
    ...report.limits.map((limit) => `Not checked: ${limit}`),
    ...(report.credentialsWithheld.length > 0
      ? [`The credentials were not sent to ${report.credentialsWithheld.join(', ')}: not the agent's origin.`]
      : []),
  ];
  fill(
    byId('check-report'),
    notes.length > 0
      ? h(
          'ul',
          { class: 'check-notes muted' },
          notes.map((note) => h('li', null, note)),
        )
      : '',
    ...[...groups].map(([name, results]) =>
      h(
        'section',
        { class: 'check-group' },
        h('h4', null, name),
        h(
          'ol',
          { class: 'check-list' },
          results.map((result) =>
            h(
              'li',
              { class: `check-result ${result.outcome}`, 'data-check': result.id },
              h('div', null, h('span', { class: 'mark', 'aria-label': result.outcome }, mark[result.outcome]), ` ${result.title}`),
              h('div', { class: 'muted' }, `${result.level} · ${result.section} · `, h('code', null, result.id)),
              result.reason ? h('p', { class: result.outcome === 'failed' ? 'reason bad' : 'reason muted' }, result.reason) : '',
              result.outcome === 'failed'
                ? h(
                    'ul',
                    { class: 'check-exchanges' },
                    result.exchanges
                      .filter((exchange) => exchange.logId !== undefined)
                      .map((exchange) =>
                        h(
                          'li',
                          null,
                          h(
                            'a',
                            {
                              href: `#exchange-${exchange.logId}`,
                              class: 'exchange-link',
                              onclick: (event: Event) => showExchange(event, exchange.logId!),
                            },
                            `Raw exchange #${exchange.logId}: ${exchange.request.method} ${exchange.request.url}`,
                          ),
                        ),
                      ),
                  )
                : '',
            ),
          ),
        ),
      ),
    ),
  );
}

/** Opens the raw log at one exchange, marked until another is shown. */
function showExchange(event: Event, logId: number): void {
  event.preventDefault();
  const entry = document.getElementById(`exchange-${logId}`);
  if (!entry) return;
  byId('tab-log').click();
  for (const marked of document.querySelectorAll('.exchange.shown')) marked.classList.remove('shown');
  entry.classList.add('shown');
  entry.tabIndex = -1;
  entry.scrollIntoView({ block: 'start' });
  entry.focus();
}

// ---- push notifications ------------------------------------------------------------------------

async function registerPush(): Promise<void> {
  const taskId = state.selected;
  if (!taskId) return;
  say('push-status', `Registering the receiver on task ${taskId}…`);
  const answer = await callAgent<object>('push', {
    taskId,
    webhookUrl: byId<HTMLInputElement>('webhook-url').value,
    jwksUrl: byId<HTMLInputElement>('jwks-url').value,
    token: state.pushToken,
  });
  if (!answer.ok) say('push-status', `The agent refused: ${answer.error?.message ?? 'no reason given'}`, 'error');
  else say('push-status', `Registered on task ${taskId}: its notifications appear below.`);
}

function addPush(delivery: {
  time: string;
  verified?: boolean;
  reason?: string;
  body: string;
  headers: Record<string, string>;
  jwksUrl?: string;
  challenge?: boolean;
}): void {
  state.pushCount++;
  byId('push-count').textContent = ` (${state.pushCount})`;
  let pretty = delivery.body;
  let taskId: string | undefined;
  try {
    const parsed = JSON.parse(delivery.body) as Record<string, unknown>;
    pretty = JSON.stringify(parsed, null, 2);
    const found = [parsed, parsed.task, parsed.statusUpdate, parsed.artifactUpdate].find(
      (v) => v && typeof v === 'object' && typeof ((v as { id?: unknown }).id ?? (v as { taskId?: unknown }).taskId) === 'string',
    ) as { id?: string; taskId?: string } | undefined;
    taskId = found?.taskId ?? found?.id;
  } catch {
    // shown as it came
  }
  const verdict = delivery.challenge
    ? h('span', { class: 'badge' }, 'ownership check answered')
    : delivery.verified
      ? h('span', { class: 'badge good verified' }, `✓ signature verified against ${delivery.jwksUrl ?? 'the JWKS'}`)
      : h('span', { class: 'badge bad unverified' }, `✗ not verified: ${delivery.reason ?? 'unknown reason'}`);
  byId('push-log').prepend(
    h(
      'li',
      { class: 'delivery' },
      h('div', { class: 'line' }, h('time', null, clock(delivery.time)), taskId ? ` task ${taskId} ` : ' ', verdict),
      h('details', null, h('summary', null, 'Headers'), headerList(delivery.headers)),
      pretty ? h('pre', { class: 'body' }, pretty) : '',
    ),
  );
  if (taskId && state.tasks.has(taskId)) {
    state.tasks.get(taskId)!.timeline.push({
      time: delivery.time,
      kind: 'push',
      summary: delivery.verified
        ? 'notification received, signature verified'
        : `notification received, not verified (${delivery.reason ?? ''})`,
    });
    renderTimeline();
  }
}

// ---- the frame -------------------------------------------------------------------------------

function tabs(): void {
  const list = Array.from(document.querySelectorAll<HTMLButtonElement>('[role="tab"]'));
  const show = (tab: HTMLButtonElement) => {
    for (const other of list) {
      const selected = other === tab;
      other.setAttribute('aria-selected', String(selected));
      other.tabIndex = selected ? 0 : -1;
      byId(other.getAttribute('aria-controls')!).hidden = !selected;
    }
  };
  for (const [at, tab] of list.entries()) {
    tab.addEventListener('click', () => show(tab));
    tab.addEventListener('keydown', (event) => {
      const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
      if (!step) return;
      const next = list[(at + step + list.length) % list.length]!;
      show(next);
      next.focus();
    });
  }
}

function theme(): void {
  const button = byId<HTMLButtonElement>('theme');
  const modes = ['auto', 'light', 'dark'] as const;
  let mode = 0;
  button.addEventListener('click', () => {
    mode = (mode + 1) % modes.length;
    const name = modes[mode]!;
    if (name === 'auto') delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = name;
    button.textContent = `Theme: ${name}`;
    button.setAttribute('aria-label', `Colour theme: ${name === 'auto' ? 'follow the system' : name}`);
  });
}

function report(error: unknown): void {
  say('connection-status', (error as Error).message, 'error');
}

function openEvents(): void {
  const events = new EventSource(eventsPath(state.session));
  events.addEventListener('raw', (e) => addRaw(JSON.parse((e as MessageEvent<string>).data) as RawEntry));
  events.addEventListener('departure', (e) => addDeparture(JSON.parse((e as MessageEvent<string>).data)));
  events.addEventListener('push', (e) => addPush(JSON.parse((e as MessageEvent<string>).data)));
  // The browser reconnects on its own; a stream that is closed for good (the inspector restarted,
  // and this page's session with it) needs the page reloaded.
  events.addEventListener('error', () => {
    if (events.readyState === EventSource.CLOSED) say('connection-status', "Lost the inspector's event stream: reload the page.", 'error');
  });
}

async function start(): Promise<void> {
  tabs();
  theme();
  const { session, webhookUrl } = await post<{ session: string; webhookUrl: string }>('api/session', {});
  state.session = session;
  useSession(session);
  state.webhookUrl = webhookUrl;
  byId<HTMLInputElement>('webhook-url').value = webhookUrl;
  byId<HTMLInputElement>('push-token').value = state.pushToken;
  openEvents();
  const authKind = byId<HTMLSelectElement>('auth-kind');
  const headerField = byId('auth-header-field');
  authKind.addEventListener('change', () => {
    headerField.hidden = authKind.value !== 'api-key';
  });
  byId('connect-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void connect(byId<HTMLInputElement>('agent-url').value).catch(report);
  });
  byId('interface').addEventListener('change', () => {
    renderCards();
    updateControls();
  });
  byId('composer').addEventListener('submit', (event) => {
    event.preventDefault();
    void send().catch(report);
  });
  byId('message-text').addEventListener('keydown', (event) => {
    if ((event as KeyboardEvent).key === 'Enter' && ((event as KeyboardEvent).ctrlKey || (event as KeyboardEvent).metaKey)) {
      event.preventDefault();
      void send().catch(report);
    }
  });
  byId('cancel').addEventListener('click', () => void cancelTask().catch(report));
  byId('new-conversation').addEventListener('click', newConversation);
  byId('list-tasks').addEventListener('click', () => void listTasks().catch(report));
  byId('open-task-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const id = byId<HTMLInputElement>('open-task-id').value.trim();
    if (id) void openTask(id).catch(report);
  });
  byId('register-push').addEventListener(
    'click',
    () => void registerPush().catch((error) => say('push-status', (error as Error).message, 'error')),
  );
  byId('clear-log').addEventListener('click', () => fill(byId('raw-log')));
  byId('run-check').addEventListener('click', () => void runChecks().catch(report));
  renderTimeline();
  updateControls();
  const config = await getJson<{ agentUrl: string | null }>('api/config');
  const asked = new URLSearchParams(location.search).get('agent') ?? config.agentUrl;
  if (asked) {
    byId<HTMLInputElement>('agent-url').value = asked;
    await connect(asked);
  }
  document.body.dataset.ready = 'true';
}

start().catch(report);
