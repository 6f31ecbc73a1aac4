// The A2A inspector's server: the page, and the few calls the page makes. The page never talks to
// the agent itself (a browser would need the agent to allow its origin, and could not show the
// exchanges as they were sent): it asks this server, which speaks every version through this
// package's clients, records each exchange as it crossed the wire, and passes the records, the
// answers and the push notifications it receives back to the page that asked.
//
// Nothing here keeps a credential: the page sends its headers with each call, and they live only
// as long as that call. The clients (cached per page, so that a card is read once) carry none:
// the call's headers are added to each of its requests from the call's async context.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { BlockList, type AddressInfo } from 'node:net';
import { createPushNotificationVerifier, PushVerificationError, type PushVerifier } from 'a2a-push-receiver';
import type { Message } from 'a2a-types';
import { checkAgent } from '../check/run.js';
import { agentApi, type AgentApi, type Protocol } from '../cli-agent.js';
import type { GrpcTransportOptions } from '../grpc.js';
import { agentBase, discover, withHttpScheme } from './discovery.js';
import { recordingFetch, recordingGrpc, type RawEntry } from './recorder.js';

export interface InspectorOptions {
  /** The agent the page opens with; a function of the request to derive it (the router's own URL). */
  agentUrl?: string | ((req: IncomingMessage) => string | undefined);
  /**
   * The one agent the page may reach, as the inspector's server reaches it (a function of the
   * request): whatever agent, card or JWKS URL the page names is replaced by it, so that the
   * page cannot make the server fetch anything else. The router's option pins its own agent.
   */
  pinnedAgent?: (req: IncomingMessage) => string;
  /**
   * Host names (with port or without) the inspector answers to; any other `Host` header is refused,
   * so that a web page cannot reach it by a DNS name of its own pointing at 127.0.0.1. Default:
   * any (the router serves the page where the app is reached); `serveInspector` sets loopback.
   */
  allowedHosts?: readonly string[];
  /** Time an agent has to answer one call, ms. Default 30,000. */
  timeoutMs?: number;
  /**
   * Largest body of one of the page's calls (a message with its files as base64), bytes; a larger
   * one is refused before it is read. Default 32 MiB; beside an agent (the router's option), 4 MiB.
   */
  maxCallBytes?: number;
  /**
   * Pages open at once from one client address: a new one beyond that closes that address's
   * least recently used. Default 4. With `maxSessions` (default 64) in all, a new page beyond
   * that closes the least recently used page of the address that has the most: whoever opens
   * pages cannot keep another address's out.
   */
  maxSessionsPerAddress?: number;
  maxSessions?: number;
  /**
   * A secret every call of the page must carry (`a2a-inspector-token`, or `token` in the query of
   * its event stream): `serveInspector` sets one when it listens beyond loopback, and puts it in
   * the page's address. Default none.
   */
  token?: string;
  /** How the inspector dials an agent's gRPC interface: TLS (a CA, a client certificate), keepalive. Default: plaintext unless the card's URL is grpcs://. */
  grpc?: Omit<GrpcTransportOptions, 'metadata' | 'observe'>;
  /**
   * The fetch of its requests to agents (cards, calls, checks, the keys that sign their push
   * notifications): `tlsFetch()` from a2a-client/tls
   * for a CA of your own and a client certificate. Default the global fetch.
   */
  fetch?: typeof fetch;
}

export interface Inspector {
  /** Serves the page and its calls; works as a Node request listener and as Express middleware. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Ends the page's event streams and forgets its sessions. */
  close(): void;
}

/** One open page: its event stream, the clients it uses, the push registration it made. */
interface Session {
  id: string;
  /** The client address that opened it. */
  address: string;
  lastSeen: number;
  listeners: Set<ServerResponse>;
  /** Events sent while no stream was open (the page reconnecting), handed on when it is. */
  backlog: { frame: string; at: number }[];
  backlogBytes: number;
  apis: Map<string, AgentApi>;
  /** The receiver's own id: the address agents are given names this, never the session. */
  pushId: string;
  /** Each task's registration: its JWKS and its token, checked per delivery. */
  push: Map<string, { verifier: PushVerifier<unknown>; jwksUrl: string }>;
  /** Whether `a2a check` is running for this page: one at a time. */
  checking: boolean;
}

interface AgentChoice {
  url: string;
  protocol: Protocol;
  binding?: string;
}

/** The headers (credentials) of the page's call under way, for the requests it makes. */
const callHeaders = new AsyncLocalStorage<Record<string, string>>();

/** Event streams of one page: a page has one; a few more while it reconnects. */
const MAX_LISTENERS_PER_SESSION = 4;
const SESSION_IDLE_MS = 6 * 60 * 60 * 1000;
/** A page away (reloading) has its events kept this long, this much at most: they may carry its credentials. */
const BACKLOG_MS = 60_000;
const MAX_BACKLOG_BYTES = 4 * 1024 * 1024;
/** A page's call carries files as base64: room for a few megabytes of them. */
const MAX_CALL_BYTES = 32 * 1024 * 1024;
/** The header a page names its session in, so that a call for no session is refused before its body is read. */
const SESSION_HEADER = 'a2a-inspector-session';
const TOKEN_HEADER = 'a2a-inspector-token';
const MAX_PUSH_BYTES = 4 * 1024 * 1024;

const PAGE_DIR = new URL('../../page/', import.meta.url);
// Two levels below the package both as source (src/inspector) and compiled (dist/inspector).
const SCRIPT_DIR = new URL('../../dist/page/', import.meta.url);
const ASSETS: Record<string, { file: URL; type: string }> = {
  '/': { file: new URL('index.html', PAGE_DIR), type: 'text/html; charset=utf-8' },
  '/style.css': { file: new URL('style.css', PAGE_DIR), type: 'text/css; charset=utf-8' },
  '/icon.svg': { file: new URL('icon.svg', PAGE_DIR), type: 'image/svg+xml' },
};
for (const script of ['main', 'dom', 'json-view', 'curl', 'api', 'model']) {
  ASSETS[`/${script}.js`] = { file: new URL(`${script}.js`, SCRIPT_DIR), type: 'text/javascript; charset=utf-8' };
}
/** Everything the page loads comes from here; nothing from elsewhere may run in it. */
const PAGE_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function createInspector(options: InspectorOptions = {}): Inspector {
  const sessions = new Map<string, Session>();
  const assets = new Map<string, Buffer>();
  const timeoutMs = options.timeoutMs ?? 30_000;

  const emit = (session: Session, event: string, data: unknown) => {
    const frame = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    if (session.listeners.size === 0) {
      const now = Date.now();
      session.backlog.push({ frame, at: now });
      session.backlogBytes += frame.length;
      while (session.backlog.length > 0 && (session.backlogBytes > MAX_BACKLOG_BYTES || now - session.backlog[0]!.at > BACKLOG_MS)) {
        session.backlogBytes -= session.backlog.shift()!.frame.length;
      }
      return;
    }
    for (const listener of session.listeners) listener.write(frame);
  };

  const maxSessions = options.maxSessions ?? 64;
  const maxSessionsPerAddress = options.maxSessionsPerAddress ?? 4;
  const maxCallBytes = options.maxCallBytes ?? MAX_CALL_BYTES;

  /** Lets go of a session's clients: a gRPC one holds a channel open until closed. */
  const dropClients = (session: Session) => {
    for (const api of session.apis.values()) api.close?.();
    session.apis.clear();
  };

  const closeSession = (session: Session) => {
    for (const listener of session.listeners) listener.end();
    dropClients(session);
    sessions.delete(session.id);
  };

  /** The least recently used of `candidates`. */
  const leastRecent = (candidates: Iterable<Session>): Session | undefined => {
    let oldest: Session | undefined;
    for (const session of candidates) if (!oldest || session.lastSeen < oldest.lastSeen) oldest = session;
    return oldest;
  };

  const newSession = (address: string): Session => {
    const now = Date.now();
    for (const [id, session] of sessions) {
      if (session.listeners.size === 0 && now - session.lastSeen > SESSION_IDLE_MS) {
        dropClients(session);
        sessions.delete(id);
      }
    }
    const byAddress = new Map<string, Session[]>();
    for (const session of sessions.values()) {
      const list = byAddress.get(session.address);
      if (list) list.push(session);
      else byAddress.set(session.address, [session]);
    }
    // An address at its bound makes room among its own pages; a full inspector, among the pages
    // of the address that has the most. Never 503: the developer can always open the page.
    const own = byAddress.get(address) ?? [];
    if (own.length >= maxSessionsPerAddress) closeSession(leastRecent(own)!);
    else if (sessions.size >= maxSessions) {
      const most = [...byAddress.values()].reduce((a, b) => (b.length > a.length ? b : a));
      closeSession(leastRecent(most)!);
    }
    const session: Session = {
      id: randomUUID(),
      address,
      lastSeen: now,
      listeners: new Set(),
      backlog: [],
      backlogBytes: 0,
      apis: new Map(),
      pushId: randomUUID(),
      push: new Map(),
      checking: false,
    };
    sessions.set(session.id, session);
    return session;
  };

  const sessionOf = (id: unknown): Session => {
    const session = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!session) throw new RequestError(404, 'unknown session: reload the page');
    session.lastSeen = Date.now();
    return session;
  };

  /** The client for one agent interface, made once per page. */
  const apiFor = (session: Session, agent: AgentChoice): AgentApi => {
    const key = JSON.stringify([agent.url, agent.protocol, agent.binding ?? '']);
    let api = session.apis.get(key);
    if (!api) {
      const binding = agent.binding?.toUpperCase();
      const record = (entry: RawEntry) => emit(session, 'raw', entry);
      const recorded = recordingFetch(record, options.fetch);
      api = agentApi(agent.protocol, agentBase(agent.url), {
        timeoutMs,
        // The credentials of the call under way, added before the request is recorded: the log shows what was sent.
        fetch: Object.assign(
          (input: string | URL | Request, init: RequestInit = {}) => {
            const credentials = callHeaders.getStore();
            if (!credentials || Object.keys(credentials).length === 0) return recorded(input, init);
            return recorded(input, { ...init, headers: { ...Object.fromEntries(new Headers(init.headers)), ...credentials } });
          },
          // The client meets a card's mutual TLS scheme with the certificate the given fetch presents.
          { clientCertificate: (options.fetch as { clientCertificate?: unknown } | undefined)?.clientCertificate === true },
        ),
        validateResponses: 'warn',
        onDeparture: (departure) => emit(session, 'departure', { time: new Date().toISOString(), ...departure }),
        ...(binding === 'JSONRPC' || binding === 'HTTP+JSON' || binding === 'GRPC' ? { preferredBinding: binding } : {}),
        // Over gRPC the call's credentials go in its metadata, and the call is recorded as it goes.
        grpc: { ...options.grpc, metadata: () => callHeaders.getStore() ?? {}, observe: recordingGrpc(record) },
      });
      // A page that changes its agent leaves the old clients behind.
      if (session.apis.size >= 16) {
        const [oldestKey, oldest] = session.apis.entries().next().value!;
        oldest.close?.();
        session.apis.delete(oldestKey);
      }
      session.apis.set(key, api);
    }
    return api;
  };

  const routes: Record<string, (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>> = {
    'GET /api/config': async (req, res) => {
      const agentUrl = typeof options.agentUrl === 'function' ? options.agentUrl(req) : options.agentUrl;
      sendJson(res, 200, { agentUrl: agentUrl ?? null });
    },
    'POST /api/session': async (req, res) => {
      await readJson(req, 1024);
      const session = newSession(clientAddress(req));
      sendJson(res, 200, { session: session.id, webhookUrl: `${pageUrl(req)}api/push/${session.pushId}` });
    },
    'GET /api/events': async (req, res, url) => {
      const session = sessionOf(url.searchParams.get('session'));
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
      res.write(': the inspector\n\n');
      const fresh = Date.now() - BACKLOG_MS;
      for (const { frame, at } of session.backlog.splice(0)) if (at >= fresh) res.write(frame);
      session.backlogBytes = 0;
      // A page holds one stream; more are reconnections whose old stream has not closed yet.
      if (session.listeners.size >= MAX_LISTENERS_PER_SESSION) session.listeners.values().next().value!.end();
      session.listeners.add(res);
      const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
      req.once('close', () => {
        clearInterval(keepAlive);
        session.listeners.delete(res);
      });
    },
    'POST /api/discover': async (req, res) => {
      const session = sessionOf(req.headers[SESSION_HEADER]);
      const body = (await readJson(req, 64 * 1024)) as { url?: unknown; headers?: unknown };
      const url = options.pinnedAgent ? options.pinnedAgent(req) : agentUrlOf(body.url);
      dropClients(session);
      const record = recordingFetch((entry) => emit(session, 'raw', entry), options.fetch);
      sendJson(res, 200, await discover(url, record, headersOf(body.headers)));
    },
    // The Check tab: `a2a check` against the agent, every exchange in the page's raw log (each
    // result names its exchanges' log numbers). One run at a time per page; the checks' own
    // bounds (rate, 300 requests, timeouts) hold the run's length.
    'POST /api/check': async (req, res) => {
      const session = sessionOf(req.headers[SESSION_HEADER]);
      const body = (await readJson(req, 64 * 1024)) as { url?: unknown; headers?: unknown; message?: unknown; slowMessage?: unknown };
      const url = options.pinnedAgent ? options.pinnedAgent(req) : agentUrlOf(body.url);
      const text = (value: unknown, name: string) => {
        if (value === undefined || value === null || value === '') return undefined;
        if (typeof value !== 'string' || value.length > 10_000)
          throw new RequestError(400, `${name} must be a text of 10,000 characters at most`);
        return value;
      };
      const message = text(body.message, 'the message');
      const slowMessage = text(body.slowMessage, 'the slow message');
      const headers = headersOf(body.headers);
      if (session.checking) throw new RequestError(409, 'a check is already running for this page');
      session.checking = true;
      try {
        const report = await checkAgent(url, {
          headers,
          ...(message !== undefined && { message }),
          ...(slowMessage !== undefined && { slowMessage }),
          timeoutMs: Math.min(timeoutMs, 10_000),
          ...(options.fetch && { fetcher: options.fetch }),
          ...(options.grpc?.tls && { grpcTls: options.grpc.tls }),
          record: (entry) => emit(session, 'raw', entry),
        });
        sendJson(res, 200, report);
      } finally {
        session.checking = false;
      }
    },
    'POST /api/call': async (req, res) => {
      const session = sessionOf(req.headers[SESSION_HEADER]);
      const body = (await readJson(req, maxCallBytes)) as {
        agent?: Partial<AgentChoice>;
        headers?: unknown;
        op?: unknown;
        args?: Record<string, unknown>;
      };
      const agent = agentChoiceOf(options.pinnedAgent ? { ...body.agent, url: options.pinnedAgent(req) } : body.agent);
      const api = apiFor(session, agent);
      const headers = headersOf(body.headers);
      const args = body.args ?? {};
      const aborted = new AbortController();
      res.once('close', () => aborted.abort());
      const op = String(body.op);
      if (op === 'stream' || op === 'resubscribe') {
        const events =
          op === 'stream'
            ? api.stream(messageOf(args.message), addressingOf(args), aborted.signal)
            : api.resubscribe(stringArg(args, 'taskId'), undefined, aborted.signal);
        await callHeaders.run(headers, () => streamLines(res, events, aborted.signal));
        return;
      }
      try {
        const pinned = options.pinnedAgent && agentBase(options.pinnedAgent(req));
        const answer = await callHeaders.run(headers, () => unary(session, api, agent, op, args, aborted.signal, pinned));
        sendJson(res, 200, { ok: true, ...answer });
      } catch (error) {
        if (error instanceof RequestError) throw error;
        sendJson(res, 200, { ok: false, error: errorOf(error) });
      }
    },
  };

  const unary = async (
    session: Session,
    api: AgentApi,
    agent: AgentChoice,
    op: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    pinnedBase: string | undefined,
  ) => {
    switch (op) {
      case 'send':
        return api.send(messageOf(args.message), addressingOf(args), signal);
      case 'get':
        return api.get(stringArg(args, 'taskId'), typeof args.historyLength === 'number' ? args.historyLength : undefined);
      case 'cancel':
        return api.cancel(stringArg(args, 'taskId'));
      case 'list': {
        if (!api.list) throw new RequestError(400, `A2A ${agent.protocol} has no method that lists tasks (1.0's ListTasks)`);
        return api.list(typeof args.contextId === 'string' ? { contextId: args.contextId } : {});
      }
      case 'push': {
        const taskId = stringArg(args, 'taskId');
        const webhookUrl = httpUrl(stringArg(args, 'webhookUrl'), 'the receiver URL');
        const token = stringArg(args, 'token');
        // Pinned to one agent, the keys are that agent's: the server fetches nothing else.
        const jwksUrl = pinnedBase ? `${pinnedBase}/.well-known/jwks.json` : httpUrl(stringArg(args, 'jwksUrl'), 'the JWKS URL');
        // In place before the agent answers (its first notification may come first); a refused
        // registration puts back what was there.
        const before = session.push.get(taskId);
        session.push.set(taskId, {
          jwksUrl,
          // The agent's keys read with the fetch its calls go through (its CA, its client certificate).
          verifier: createPushNotificationVerifier<unknown>({
            jwksUrl: new URL(jwksUrl),
            expectedToken: token,
            ...(options.fetch && { fetch: options.fetch }),
          }),
        });
        try {
          return { raw: await api.setPush(taskId, { url: webhookUrl, token }) };
        } catch (error) {
          if (before) session.push.set(taskId, before);
          else session.push.delete(taskId);
          throw error;
        }
      }
      default:
        throw new RequestError(400, `unknown operation ${JSON.stringify(op)}`);
    }
  };

  /** A push notification for one page: shown there with the outcome of checking its signature. */
  const receivePush = async (req: IncomingMessage, res: ServerResponse, url: URL, id: string) => {
    const session = [...sessions.values()].find((s) => s.pushId === id);
    if (!session) throw new RequestError(404, 'no such receiver');
    // An agent that checks a webhook before using it (validationToken) gets its token back.
    const challenge = url.searchParams.get('validationToken');
    if (req.method === 'GET' && challenge !== null) {
      res.writeHead(200, { 'content-type': 'text/plain' }).end(challenge);
      emit(session, 'push', { time: new Date().toISOString(), challenge: true, headers: plainHeaders(req), body: '' });
      return;
    }
    if (req.method !== 'POST') throw new RequestError(405, 'the push receiver takes POST');
    const body = await readBody(req, MAX_PUSH_BYTES);
    const text = body.toString('utf8');
    const delivery: Record<string, unknown> = { time: new Date().toISOString(), headers: plainHeaders(req), body: text };
    const taskId = taskIdOf(text);
    const registration = (taskId && session.push.get(taskId)) || (session.push.size === 1 ? [...session.push.values()][0] : undefined);
    if (!registration) {
      delivery.verified = false;
      delivery.reason =
        session.push.size === 0
          ? 'no push notification was registered from this page, so there is no JWKS to check it against'
          : `no registration from this page for the task ${JSON.stringify(taskId ?? '(none named)')}`;
    } else {
      delivery.jwksUrl = registration.jwksUrl;
      try {
        const { claims } = await registration.verifier.verify({ headers: req.headers, body });
        delivery.verified = true;
        delivery.claims = claims;
      } catch (error) {
        delivery.verified = false;
        delivery.reason = error instanceof PushVerificationError ? `${error.reason}: ${error.message}` : (error as Error).message;
      }
    }
    emit(session, 'push', delivery);
    res.writeHead(delivery.verified ? 204 : 401).end();
  };

  const serveAsset = async (req: IncomingMessage, res: ServerResponse, path: string) => {
    const asset = ASSETS[path];
    if (!asset) throw new RequestError(404, 'not found');
    // The page's scripts and styles load relative to it: its address must end with a slash.
    // (Never `//host`, which a browser would read as another site.)
    const original = originalPath(req).replace(/^\/{2,}/, '/');
    if (path === '/' && !original.endsWith('/')) {
      const query = req.url?.includes('?') ? req.url.slice(req.url.indexOf('?')) : '';
      res.writeHead(308, { location: `${original}/${query}` }).end();
      return;
    }
    let content = assets.get(path);
    if (!content) {
      content = await readFile(asset.file);
      assets.set(path, content);
    }
    res.writeHead(200, {
      'content-type': asset.type,
      'content-length': content.length,
      'cache-control': 'no-cache',
      'content-security-policy': PAGE_POLICY,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    });
    res.end(req.method === 'HEAD' ? undefined : content);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://inspector.invalid');
    const path = url.pathname === '' ? '/' : url.pathname;
    if (options.allowedHosts && !options.allowedHosts.includes(req.headers.host ?? '')) {
      throw new RequestError(403, `the inspector does not answer to the host ${JSON.stringify(req.headers.host ?? '')}`);
    }
    const push = /^\/api\/push\/([\w-]+)$/.exec(path);
    if (push) return receivePush(req, res, url, push[1]!);
    if (path.startsWith('/api/')) {
      const route = routes[`${req.method} ${path}`];
      if (!route) throw new RequestError(404, `no ${req.method} ${path} here`);
      if (options.token !== undefined && !sameSecret(req.headers[TOKEN_HEADER] ?? url.searchParams.get('token'), options.token)) {
        throw new RequestError(401, 'this inspector needs the token of its address: open the page at the address it printed');
      }
      if (req.method === 'POST') {
        // Only the page itself calls these: a form or a script of another site is refused
        // (it cannot send JSON without asking, and its Origin is not this one).
        if (!(req.headers['content-type'] ?? '').startsWith('application/json')) throw new RequestError(415, 'send JSON');
        const origin = req.headers.origin;
        if (origin !== undefined && hostOf(origin) !== req.headers.host) throw new RequestError(403, 'calls from other sites are refused');
      }
      return route(req, res, url);
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') throw new RequestError(405, 'the page is read with GET');
    return serveAsset(req, res, path);
  };

  return {
    handle(req, res) {
      handle(req, res).catch((error: unknown) => {
        if (res.headersSent) {
          res.end();
          return;
        }
        const status = error instanceof RequestError ? error.status : 500;
        // A body refused unread is not read afterwards either (Node would, to keep the connection).
        if (!req.readableEnded) res.setHeader('connection', 'close');
        sendJson(res, status, { error: error instanceof RequestError ? error.message : 'the inspector failed to answer' });
      });
    },
    close() {
      for (const session of sessions.values()) for (const listener of session.listeners) listener.end();
      sessions.clear();
    },
  };
}

export interface RunningInspector {
  /** Where the page is. */
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** Where `serveInspector` listens, and who may reach it there. */
export interface ServeInspectorOptions extends InspectorOptions {
  /** The address to listen on (a literal or a name). Default 127.0.0.1. */
  host?: string;
  port?: number;
  /**
   * Listen on an address beyond loopback (every interface, or one of them). The inspector
   * fetches what its page asks for, with no account of its own: reachable from elsewhere it would
   * be a proxy into this machine's network. With this, every call of the page must carry a token
   * made at start-up, given in the page's address (`url`). Default false: loopback only.
   */
  allowRemote?: boolean;
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * Serves the inspector on its own port, on loopback unless `allowRemote` says otherwise: what
 * `a2a inspect <url>` runs. The host is resolved as listening would resolve it, so that any
 * spelling of an address (`0`, `000.0.0.0`, `::0`, `[::]`, a name) is judged by the address it
 * is; the server then listens on that address.
 */
export async function serveInspector(options: ServeInspectorOptions = {}): Promise<RunningInspector> {
  const host = (options.host ?? '127.0.0.1').replace(/^\[(.*)\]$/, '$1');
  let address: LookupAddress;
  try {
    address = await lookup(host, { verbatim: true });
  } catch {
    throw new TypeError(`the inspector cannot listen on ${JSON.stringify(options.host)}: not an address of this machine`);
  }
  const loopback = LOOPBACK.check(address.address, address.family === 6 ? 'ipv6' : 'ipv4');
  if (!loopback && !options.allowRemote) {
    throw new TypeError(
      `the inspector listens on loopback only (127.0.0.1 by default); ${JSON.stringify(options.host)} is ${address.address}, ` +
        'reachable from elsewhere: pass --allow-remote (allowRemote) to serve it there behind a token',
    );
  }
  const token = loopback ? undefined : randomBytes(24).toString('base64url');
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, address.address, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const shown = address.family === 6 ? `[${address.address}]` : address.address;
  const names = new Set([shown, ...(loopback ? ['127.0.0.1', 'localhost', '[::1]'] : [])]);
  // Beyond loopback the page is reached by names this server cannot know; the token guards it.
  const guard = token ? { token } : { allowedHosts: [...names].map((name) => `${name}:${port}`) };
  const inspector = createInspector({ ...guard, ...options });
  server.on('request', (req, res) => inspector.handle(req, res));
  return {
    url: `http://${shown}:${port}/${token ? `?token=${token}` : ''}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        inspector.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Who opened a page: the request's address (Express's, which honours `trust proxy`, beside an agent). */
function clientAddress(req: IncomingMessage): string {
  const address = (req as IncomingMessage & { ip?: string }).ip ?? req.socket.remoteAddress ?? 'unknown';
  return address.replace(/^::ffff:/, '');
}

/** Whether a presented secret is `secret`, in time that does not depend on where they differ. */
function sameSecret(presented: unknown, secret: string): boolean {
  if (typeof presented !== 'string') return false;
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(secret).digest();
  return timingSafeEqual(a, b);
}

/** The host of an Origin header; none for `null` or anything that is not a URL. */
function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}

function httpUrl(value: string, what: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new RequestError(400, `${what} is not a URL: ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RequestError(400, `${what} must be http or https`);
  return url.toString();
}

/** The task a push notification is about, in any version's body (0.1.0 and 0.3: a task; 1.0: a StreamResponse). */
function taskIdOf(body: string): string | undefined {
  try {
    const value = JSON.parse(body) as Record<string, { id?: unknown; taskId?: unknown } | undefined> & { id?: unknown; taskId?: unknown };
    for (const candidate of [value, value.task, value.statusUpdate, value.artifactUpdate, value.message]) {
      const id = candidate?.taskId ?? candidate?.id;
      if (typeof id === 'string') return id;
    }
  } catch {
    // not JSON: no task to name
  }
  return undefined;
}

class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Writes a stream's events as lines of JSON, then how it ended. */
async function streamLines(res: ServerResponse, events: AsyncIterable<unknown>, signal: AbortSignal): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store' });
  try {
    for await (const event of events) {
      if (signal.aborted) break;
      res.write(`${JSON.stringify({ event })}\n`);
    }
    res.end(`${JSON.stringify({ end: true })}\n`);
  } catch (error) {
    res.end(signal.aborted ? undefined : `${JSON.stringify({ error: errorOf(error) })}\n`);
  }
}

/** A client error as the page shows it: its kind, its message, and its A2A code and data where it has them. */
function errorOf(error: unknown): Record<string, unknown> {
  const e = error as { name?: string; message?: string; code?: unknown; data?: unknown; status?: unknown; details?: unknown };
  const out: Record<string, unknown> = { name: e.name ?? 'Error', message: e.message ?? String(error) };
  if (typeof e.code === 'number') out.code = e.code;
  if (e.data !== undefined) out.data = e.data;
  if (typeof e.status === 'number') out.status = e.status;
  if (e.details !== undefined) out.details = e.details;
  return out;
}

function agentUrlOf(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw new RequestError(400, "the agent's URL is missing");
  const text = withHttpScheme(value.trim());
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RequestError(400, `not a URL: ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RequestError(400, 'the agent must be reached over http or https');
  return url.toString();
}

function agentChoiceOf(value: Partial<AgentChoice> | undefined): AgentChoice {
  const protocol = value?.protocol;
  if (protocol !== '0.1.0' && protocol !== '0.3' && protocol !== '1.0') throw new RequestError(400, 'choose an interface first');
  return { url: agentUrlOf(value?.url), protocol, ...(typeof value?.binding === 'string' ? { binding: value.binding } : {}) };
}

/** The headers the page's credentials make; names and values as HTTP allows them. */
function headersOf(value: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  if (value === undefined || value === null) return headers;
  if (typeof value !== 'object') throw new RequestError(400, 'headers must be an object');
  for (const [name, text] of Object.entries(value as Record<string, unknown>)) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new RequestError(400, `not a header name: ${JSON.stringify(name)}`);
    if (typeof text !== 'string' || /[\r\n\0]/.test(text)) throw new RequestError(400, `the header ${name} needs a one-line value`);
    headers[name] = text;
  }
  return headers;
}

function messageOf(value: unknown): Message {
  const message = value as Message | undefined;
  if (!message || typeof message !== 'object' || !Array.isArray(message.parts)) throw new RequestError(400, 'a message needs parts');
  return { role: 'user', parts: message.parts };
}

function addressingOf(args: Record<string, unknown>) {
  return {
    ...(typeof args.taskId === 'string' && args.taskId ? { taskId: args.taskId } : {}),
    ...(typeof args.contextId === 'string' && args.contextId ? { sessionId: args.contextId } : {}),
    ...(typeof args.historyLength === 'number' ? { historyLength: args.historyLength } : {}),
  };
}

function stringArg(args: Record<string, unknown>, name: string): string {
  const value = args[name];
  if (typeof value !== 'string' || value === '') throw new RequestError(400, `${name} is missing`);
  return value;
}

function plainHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

/** The path the request was made to, before a router took its mount point off. */
function originalPath(req: IncomingMessage): string {
  const original = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '/';
  return original.split('?')[0]!;
}

/** The page's own address (ending in a slash), as the browser reached it. */
function pageUrl(req: IncomingMessage): string {
  const path = originalPath(req).replace(/api\/session$/, '');
  const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
  const forwarded = (req as IncomingMessage & { protocol?: string }).protocol;
  return `${forwarded ?? (encrypted ? 'https' : 'http')}://${req.headers.host}${path}`;
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  // Behind an app's own body parser (express.json() before the router), the stream is spent:
  // what the parser made of it is the body. A push notification's signature covers the bytes,
  // which are gone then: it fails its body check, and the page says so.
  const parsed = (req as IncomingMessage & { body?: unknown }).body;
  if (req.readableEnded && parsed !== undefined) {
    const text = typeof parsed === 'string' ? parsed : Buffer.isBuffer(parsed) ? parsed.toString('utf8') : JSON.stringify(parsed);
    if (Buffer.byteLength(text) > limit) throw new RequestError(413, `the body is over ${limit} bytes`);
    return Buffer.from(text);
  }
  if (Number(req.headers['content-length']) > limit) throw new RequestError(413, `the body is over ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new RequestError(413, `the body is over ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const text = (await readBody(req, limit)).toString('utf8');
  if (text === '') return {};
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an object');
    return value;
  } catch {
    throw new RequestError(400, 'the body is not a JSON object');
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  res.end(text);
}
