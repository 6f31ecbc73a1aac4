// `a2a mcp <url>`: an MCP server (Model Context Protocol) in front of one A2A agent, so that an
// MCP host (Claude Desktop, Cursor, an IDE's agent) can use the agent's skills as tools. Each
// skill of the card is a tool; a call sends the agent a message and hands back its answer.
//
// Only the command line loads this module (a dynamic import in cli.ts), and the MCP SDK is an
// optional peer dependency: a library user installs neither it nor the Express it brings, and a
// web page's bundle never sees it (.dependency-cruiser-fetch-path.cjs names the SDK as Node-only).
import { randomUUID } from 'node:crypto';
import type { Server as HttpServer } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { AgentCard, AgentSkill, Artifact, FileContent, Message, Part, Task } from 'a2a-types';
import type { AgentApi } from './cli-agent.js';

export interface McpBridgeOptions {
  /** The longest a tool call waits for the agent's answer, in milliseconds; then it says the task still runs. */
  timeoutMs: number;
  /** The server's version as MCP's initialize names it. */
  version: string;
  /** Says what went wrong with a call to the agent, in a line or a few (the command line's own wording). */
  describe: (error: unknown) => Promise<string>;
}

/** A tool made from a skill. */
interface SkillTool {
  name: string;
  title: string;
  description: string;
}

/**
 * MCP's tool names (spec 2025-11-25: 1 to 128 of A-Z a-z 0-9 _ - .): the skill's id with every
 * other character made `_`, cut to the bound, and made unique with a `_2`, `_3` suffix.
 */
export function toolNamesOf(ids: readonly string[]): string[] {
  const taken = new Set<string>();
  return ids.map((id) => {
    const base = id.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 120) || 'skill';
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
    taken.add(name);
    return name;
  });
}

/** The tools for a card: one per skill, or one `send_message` when the card lists none. */
export function toolsOf(card: AgentCard): SkillTool[] {
  const skills: AgentSkill[] = Array.isArray(card.skills) ? card.skills : [];
  const agent = card.name || 'the A2A agent';
  if (skills.length === 0) {
    return [
      {
        name: 'send_message',
        title: `Ask ${agent}`,
        description: `Sends a message to ${agent} (an A2A agent) and returns its answer.${card.description ? ` ${card.description}` : ''}`,
      },
    ];
  }
  const names = toolNamesOf(skills.map((s) => String(s.id ?? '')));
  return skills.map((skill, i) => {
    const examples = (skill.examples ?? []).filter((e): e is string => typeof e === 'string').slice(0, 5);
    const description = [
      `${skill.name || skill.id}: ${skill.description || ''}`.trim(),
      `Sends a message to ${agent} (an A2A agent) and returns its answer.`,
      examples.length ? `Examples: ${examples.map((e) => JSON.stringify(e)).join('; ')}.` : '',
    ]
      .filter(Boolean)
      .join(' ');
    return { name: names[i]!, title: skill.name || skill.id, description };
  });
}

/** The tools' input, as JSON Schema (the card's skills are known at run time only, so no zod schemas are written for them). */
const INPUT_SCHEMA = {
  type: 'object',
  properties: {
    message: { type: 'string', description: 'What to ask the agent, in plain words.' },
    taskId: {
      type: 'string',
      description:
        'An A2A task to continue (one a previous answer named). Default: the task this tool left waiting for input, else a new one.',
    },
    contextId: {
      type: 'string',
      description: 'The A2A context (conversation) to send in. Default: the one this tool used last in this session.',
    },
    newTask: { type: 'boolean', description: 'Start a new task even when this tool’s last task waits for input.' },
  },
  required: ['message'],
} as const;

const OUTPUT_SCHEMA = {
  type: 'object',
  properties: {
    state: { type: 'string', description: 'The A2A task state: completed, input-required, auth-required, working, failed, …' },
    taskId: { type: 'string', description: 'The A2A task id (empty when the agent answered with a message and no task).' },
    contextId: { type: 'string', description: 'The A2A context id.' },
    question: { type: 'string', description: 'When state is input-required: what the agent asks. Call the tool again with the answer.' },
    data: { type: 'array', description: 'The data parts of the answer, in order.' },
  },
  required: ['state', 'taskId'],
} as const;

interface ToolArguments {
  message: string;
  taskId?: string;
  contextId?: string;
  newTask?: boolean;
}

/** The arguments as INPUT_SCHEMA has them, or what is wrong with them. */
function readArguments(args: Record<string, unknown> | undefined): ToolArguments | string {
  const { message, taskId, contextId, newTask } = args ?? {};
  if (typeof message !== 'string') return 'the argument "message" (a string: what to ask the agent) is missing';
  for (const [name, value] of [
    ['taskId', taskId],
    ['contextId', contextId],
  ] as const)
    if (value !== undefined && (typeof value !== 'string' || value === '')) return `the argument "${name}" must be a non-empty string`;
  if (newTask !== undefined && typeof newTask !== 'boolean') return 'the argument "newTask" must be true or false';
  return {
    message,
    ...(taskId !== undefined ? { taskId: taskId as string } : {}),
    ...(contextId !== undefined ? { contextId: contextId as string } : {}),
    ...(newTask !== undefined ? { newTask } : {}),
  };
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What a tool remembers between its calls within one MCP session. */
interface ToolMemory {
  /** The task that waits for input: the next call answers it. */
  waiting?: string;
  contextId?: string;
}

const DONE: readonly string[] = ['completed', 'failed', 'canceled', 'rejected'];
const INTERRUPTED: readonly string[] = ['input-required', 'auth-required'];

/**
 * An MCP server for one session (stdio has one; Streamable HTTP one per client session), its
 * tools made from the card read at start. Each tool keeps its own waiting task and context, so
 * two sessions never continue each other's tasks.
 */
export async function mcpServerFor(agent: AgentApi, card: AgentCard, options: McpBridgeOptions): Promise<Server> {
  const [{ Server }, { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  // The SDK's low-level server: McpServer wants a zod schema per tool, and these tools' schemas
  // are plain JSON Schema, the same for every skill of a card read at run time.
  const server = new Server(
    { name: `a2a-${(card.name || 'agent').replace(/[^A-Za-z0-9_.-]+/g, '-').toLowerCase()}`, version: options.version },
    { capabilities: { tools: {} }, ...(card.description ? { instructions: `${card.name}: ${card.description}` } : {}) },
  );
  const streaming = card.capabilities?.streaming === true;
  const tools = toolsOf(card);
  const memories = new Map<string, ToolMemory>(tools.map((t) => [t.name, {}]));
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: INPUT_SCHEMA,
      outputSchema: OUTPUT_SCHEMA,
      annotations: { openWorldHint: true },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const memory = memories.get(request.params.name);
    if (!memory) throw new McpError(ErrorCode.InvalidParams, `no tool ${JSON.stringify(request.params.name)}: tools/list names them`);
    const args = readArguments(request.params.arguments);
    if (typeof args === 'string') return failure(args);
    try {
      return await callAgent(agent, streaming, request.params.name, memory, args, extra, options);
    } catch (error) {
      return failure(extra.signal.aborted ? 'the call was canceled' : await options.describe(error));
    }
  });
  return server;
}

async function callAgent(
  agent: AgentApi,
  streaming: boolean,
  toolName: string,
  memory: ToolMemory,
  args: ToolArguments,
  extra: Extra,
  options: McpBridgeOptions,
): Promise<CallToolResult> {
  const taskId = args.taskId ?? (args.newTask ? undefined : memory.waiting);
  const contextId = args.contextId ?? memory.contextId;
  const message: Message = { role: 'user', parts: [{ type: 'text', text: args.message }] };
  // 0.1.0 tasks are named by the client: name it here, to cancel it if the caller gives up.
  const to = {
    ...(taskId ? { taskId } : agent.protocol === '0.1.0' ? { taskId: randomUUID() } : {}),
    ...(contextId ? { sessionId: contextId } : {}),
  };
  const abort = new AbortController();
  const stop = () => abort.abort();
  extra.signal.addEventListener('abort', stop, { once: true });
  const timer = setTimeout(stop, options.timeoutMs);
  const progress = progressReporter(extra);
  let task: Task | undefined;
  /** A stream's events carry the context in their raw form only (0.3, 1.0). */
  let streamedContext: string | undefined;
  const artifacts = new Artifacts();
  try {
    if (streaming) {
      for await (const { event, raw } of agent.stream(message, to, abort.signal)) {
        streamedContext ??= contextOfRaw(raw);
        if ('artifact' in event) {
          artifacts.add(event.artifact);
          await progress(`received ${event.artifact.name ?? 'an artifact'}`);
          continue;
        }
        task = { id: event.id || task?.id || '', sessionId: task?.sessionId ?? contextId ?? null, status: event.status };
        const said = event.status.message ? textOf(event.status.message.parts) : '';
        await progress(said ? `${event.status.state}: ${said}` : event.status.state);
      }
    } else {
      task = (await agent.send(message, to, abort.signal)).task;
      for (const artifact of task.artifacts ?? []) artifacts.add(artifact);
      // An agent that answers before it is done (non-blocking): ask after the task until it is.
      for (
        let wait = 250;
        !DONE.includes(task.status.state) && !INTERRUPTED.includes(task.status.state);
        wait = Math.min(wait * 2, 5_000)
      ) {
        await progress(task.status.state);
        await new Promise((resolve) => setTimeout(resolve, wait));
        if (abort.signal.aborted) break;
        task = (await agent.get(task.id)).task;
        artifacts.reset(task.artifacts ?? []);
      }
    }
  } catch (error) {
    if (!abort.signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
    extra.signal.removeEventListener('abort', stop);
  }
  const id = task?.id || to.taskId || '';
  if (abort.signal.aborted) {
    if (extra.signal.aborted) {
      // The caller gave up: so does the agent (best effort; the caller hears nothing more).
      if (id) await agent.cancel(id).catch(() => undefined);
      return failure('the call was canceled');
    }
    // Timed out: the task runs on. The next call of this tool does not continue it, but a call naming it does.
    return failure(
      `the agent had not answered after ${Math.round(options.timeoutMs / 1000)} s; the task ${id || '(not named yet)'} runs on (a2a get <url> ${id} shows it)`,
    );
  }
  if (!task) return failure('the agent ended the stream without saying how the task went');
  // 0.3 and 1.0 states (rejected, auth-required) come through the 0.1.0 view unchanged.
  const state: string = task.status.state;
  const contextOfTask = task.sessionId ?? streamedContext ?? contextId;
  memory.contextId = contextOfTask ?? undefined;
  memory.waiting = INTERRUPTED.includes(state) ? id : undefined;
  const said = task.status.message ? textOf(task.status.message.parts) : '';
  const content = artifacts.content(id);
  const structured = {
    state,
    taskId: id,
    ...(contextOfTask ? { contextId: contextOfTask } : {}),
    ...(artifacts.data.length ? { data: artifacts.data } : {}),
  };
  if (state === 'input-required') {
    content.push({
      type: 'text',
      text: `The agent asks for more: ${said || '(it did not say what)'}\nCall ${toolName} again with the answer as the message: the call continues this task (${id}).`,
    });
    return { content, structuredContent: { ...structured, question: said } };
  }
  if (state === 'auth-required')
    return failure(`the agent needs other credentials for this task (auth-required)${said ? `: ${said}` : ''}`, structured);
  if (state === 'failed' || state === 'rejected' || state === 'canceled')
    return failure(`the agent's task ${id} ended ${state}${said ? `: ${said}` : ''}`, structured, content);
  if (said) content.push({ type: 'text', text: said });
  if (content.length === 0) content.push({ type: 'text', text: `(the agent's task ended ${state} with no answer)` });
  return { content, structuredContent: structured };
}

/** The context id of a 0.3 or 1.0 stream event as it came (`contextId` on it, or on the object 1.0 wraps it in). */
function contextOfRaw(raw: unknown): string | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const direct = (raw as { contextId?: unknown }).contextId;
  if (typeof direct === 'string' && direct) return direct;
  for (const inner of Object.values(raw)) {
    const id = (inner as { contextId?: unknown } | null)?.contextId;
    if (typeof id === 'string' && id) return id;
  }
  return undefined;
}

function failure(text: string, structured?: Record<string, unknown>, content: CallToolResult['content'] = []): CallToolResult {
  return { isError: true, content: [...content, { type: 'text', text }], ...(structured ? { structuredContent: structured } : {}) };
}

/** Sends MCP progress notifications when the caller asked for them (a progressToken), one per event. */
function progressReporter(extra: Extra): (message: string) => Promise<void> {
  const token = extra._meta?.progressToken;
  let progress = 0;
  return async (message) => {
    if (token === undefined) return;
    progress += 1;
    // A notification that cannot be sent (the client left) must not fail the call.
    await extra
      .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, message } })
      .catch(() => undefined);
  };
}

/** The answer's artifacts, chunks joined as the agent streamed them, then read out as MCP content. */
class Artifacts {
  private readonly byKey = new Map<string, Artifact>();
  readonly data: unknown[] = [];

  add(artifact: Artifact): void {
    const key = String((artifact as { artifactId?: string }).artifactId ?? artifact.index ?? artifact.name ?? this.byKey.size);
    const held = this.byKey.get(key);
    if (held && artifact.append) held.parts = [...held.parts, ...artifact.parts];
    else this.byKey.set(key, { ...artifact, parts: [...artifact.parts] });
  }

  reset(artifacts: readonly Artifact[]): void {
    this.byKey.clear();
    for (const artifact of artifacts) this.add(artifact);
  }

  /**
   * Text parts as text (the chunks of one artifact joined), data parts as JSON text and in the
   * structured content's `data`, files with bytes embedded as resources (images as images),
   * files by URI as resource links.
   */
  content(taskId: string): CallToolResult['content'] {
    const content: CallToolResult['content'] = [];
    this.data.length = 0;
    for (const artifact of this.byKey.values()) {
      let text = '';
      const flush = () => {
        if (text) content.push({ type: 'text', text });
        text = '';
      };
      for (const part of artifact.parts) {
        if (part.type === 'text') {
          text += part.text;
          continue;
        }
        flush();
        if (part.type === 'data') {
          this.data.push(part.data);
          content.push({ type: 'text', text: JSON.stringify(part.data) });
        } else if (part.type === 'file') content.push(fileContent(part.file, taskId, artifact));
      }
      flush();
    }
    return content;
  }
}

function fileContent(file: FileContent, taskId: string, artifact: Artifact): CallToolResult['content'][number] {
  const mimeType = file.mimeType ?? 'application/octet-stream';
  const name = file.name ?? `${artifact.name ?? 'artifact'}-${artifact.index ?? 0}`;
  if (file.uri) return { type: 'resource_link', uri: file.uri, name, mimeType };
  if (mimeType.startsWith('image/')) return { type: 'image', data: file.bytes ?? '', mimeType };
  const uri = `a2a://tasks/${encodeURIComponent(taskId)}/artifacts/${encodeURIComponent(name)}`;
  return { type: 'resource', resource: { uri, mimeType, blob: file.bytes ?? '' } };
}

function textOf(parts: readonly Part[]): string {
  return parts
    .map((p) => (p.type === 'text' ? p.text : p.type === 'data' ? JSON.stringify(p.data) : `[file ${p.file.name ?? ''}]`))
    .join(' ');
}

// ---------------------------------------------------------------------------------------------

/** Serves MCP over stdin and stdout until stdin ends. Nothing else may write to stdout. */
export async function serveStdio(agent: AgentApi, card: AgentCard, options: McpBridgeOptions): Promise<void> {
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const server = await mcpServerFor(agent, card, options);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once('end', resolve);
  });
  await server.connect(transport);
  await closed;
  await server.close();
}

export interface HttpOptions {
  port: number;
  host: string;
  /** Host header names accepted (DNS rebinding protection); default: the SDK's for a loopback host. */
  allowedHosts?: string[];
}

/**
 * Serves MCP over Streamable HTTP at `/mcp`, a session per client (each its own server and so its
 * own waiting tasks). A loopback host gets the SDK's DNS rebinding protection (Host must name
 * localhost, 127.0.0.1 or [::1]); `allowedHosts` replaces that list.
 */
export async function serveHttp(
  agent: AgentApi,
  card: AgentCard,
  options: McpBridgeOptions,
  http: HttpOptions,
): Promise<{ url: string; server: HttpServer; close: () => Promise<void> }> {
  const [{ createMcpExpressApp }, { StreamableHTTPServerTransport }, { isInitializeRequest }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/express.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  type Transport = InstanceType<typeof StreamableHTTPServerTransport>;
  const sessions = new Map<string, Transport>();
  // The SDK protects 127.0.0.1, localhost and ::1 by itself; another loopback address (127.0.0.2) is named here so that it is too.
  const loopback = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/.test(http.host);
  const allowedHosts = http.allowedHosts?.length
    ? http.allowedHosts
    : loopback
      ? ['localhost', '127.0.0.1', '[::1]', http.host.includes(':') ? `[${http.host}]` : http.host]
      : undefined;
  const app = createMcpExpressApp({ host: http.host, ...(allowedHosts ? { allowedHosts } : {}) });
  const refuse = (res: import('express').Response, status: number, message: string) =>
    res.status(status).json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
  const sessionOf = (req: import('express').Request) => {
    const id = req.headers['mcp-session-id'];
    return typeof id === 'string' ? id : undefined;
  };
  app.post('/mcp', async (req, res) => {
    const id = sessionOf(req);
    let transport = id === undefined ? undefined : sessions.get(id);
    if (!transport) {
      if (id !== undefined) return refuse(res, 404, `no session ${id} (it ended, or the server restarted): initialize again`);
      if (!isInitializeRequest(req.body)) return refuse(res, 400, 'no Mcp-Session-Id: the first request of a session is initialize');
      const created: Transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => {
          sessions.set(sessionId, created);
        },
      });
      created.onclose = () => {
        if (created.sessionId) sessions.delete(created.sessionId);
      };
      await (await mcpServerFor(agent, card, options)).connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, req.body);
  });
  // The session's server-to-client stream (GET) and its end (DELETE).
  const existing = async (req: import('express').Request, res: import('express').Response) => {
    const id = sessionOf(req);
    const transport = id === undefined ? undefined : sessions.get(id);
    if (!transport) return refuse(res, id === undefined ? 400 : 404, id === undefined ? 'no Mcp-Session-Id' : `no session ${id}`);
    await transport.handleRequest(req, res);
  };
  app.get('/mcp', existing);
  app.delete('/mcp', existing);
  const server = await new Promise<HttpServer>((resolve, reject) => {
    const listening = app.listen(http.port, http.host, (error?: Error) => (error ? reject(error) : resolve(listening)));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : http.port;
  const shownHost = http.host.includes(':') ? `[${http.host}]` : http.host;
  return {
    url: `http://${shownHost}:${port}/mcp`,
    server,
    close: async () => {
      await Promise.all([...sessions.values()].map((t) => t.close()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
