#!/usr/bin/env node
// The `a2a` command line: talk to any A2A agent (0.1.0, 0.3, 1.0) from a terminal, or check it against the spec. `a2a --help` lists the commands.
// Each command loads what it uses when it runs (import()), nothing before: the clients and their
// validators, the card signatures (protobuf), the checker and the inspector took the command line
// 0.6 s to start, for `a2a --help` too. Only Node's own modules are imported here.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, extname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import type { AgentCard, Artifact, FileContent, Message, Part, Task } from 'a2a-types';
import type { AgentApi, Event, Protocol } from './cli-agent.js';
import { withHttpScheme } from './typed-url.js';

const tty = process.stdout.isTTY === true;
const paint = (code: number) => (text: string) => (tty ? `\x1b[${code}m${text}\x1b[0m` : text);
const bold = paint(1);
const dim = paint(2);
const red = paint(31);
const green = paint(32);
const yellow = paint(33);

const HELP: Record<string, string> = {
  main: `a2a — talk to an A2A agent (0.1.0, 0.3 or 1.0)

Usage: a2a <command> [options]

Commands:
  card <url>                          fetch, check and show an agent card
  send <url> <text...>                send one message and print the answer
  chat <url>                          an interactive conversation (Ctrl-C cancels a running task)
  get <url> <taskId>                  show a task
  cancel <url> <taskId>               cancel a task
  resubscribe <url> <taskId>          follow a task's events again
  push set <url> <taskId> <webhook>   ask for push notifications about a task
  push get <url> <taskId>             show a task's push notification config
  check <url>                         check the agent against the spec of every version and binding
                                      its cards declare (docs/check.md); exit 1 when a MUST fails
  inspect [url]                       open the A2A inspector in a browser: card, chat, timeline,
                                      raw log, push notifications (serves it on 127.0.0.1)
  mcp <url>                           an MCP server exposing the agent's skills as tools, over stdio
                                      or Streamable HTTP (--http): for Claude Desktop, Cursor, … (docs/mcp.md)

<url> is the agent's base URL; without a scheme, http:// is assumed (127.0.0.1:41241).

Common options:
  -H, --header "Name: value"          add a request header (repeatable), e.g. for authentication
  --protocol 0.1|0.3|1.0|auto         the A2A version to speak (default auto: the newest the agent
                                      serves: 1.0 if its /.well-known/agent-card.json lists a 1.0
                                      interface, else 0.1.0 if it serves /.well-known/agent.json,
                                      else 0.3)
  --binding jsonrpc|rest|grpc         over A2A 1.0 and 0.3, the binding to use (JSON-RPC, HTTP+JSON,
                                      gRPC); one the card does not list is an error (default: 1.0's
                                      first interface, 0.3's preferredTransport)
  --tls                               gRPC over TLS with the system's roots (implied by --ca, --cert
                                      and a card's grpcs:// URL: then never plaintext)
  --ca <file>                         TLS (gRPC, https://): the CA certificates (PEM) the agent's must
                                      chain to, instead of the system's roots
  --cert <file> --key <file>          mutual TLS (gRPC, https://): the client's certificate and key
                                      (PEM), for a card's mutualTLS scheme
  --api-key <key>                     the API key for the card's apiKey scheme (or X-API-Key when it
                                      names none); env A2A_API_KEY
  --bearer <token>                    the bearer token for the card's http scheme (or Authorization:
                                      Bearer when it names none); env A2A_BEARER_TOKEN
  --client-id <id> --client-secret <s> OAuth 2.0 client credentials for the card's oauth2 or
                                      openIdConnect scheme (the token fetched, cached, refreshed);
                                      env A2A_CLIENT_ID, A2A_CLIENT_SECRET; --scope "a b" (A2A_SCOPES)
  --json                              print the raw JSON responses (for scripts)
  --strict                            an answer that departs from the A2A spec is an error (exit 1);
                                      by default it is shown, with a warning on stderr per departure
  -h, --help                          help for a command (a2a send --help)`,
  card: `a2a card <url> [--json] [--header "Name: value"] [--verify [--jwks url]]

Fetches the agent card of the version spoken (1.0 and 0.3: <url>/.well-known/agent-card.json; 0.1.0: agent.json), checks it against
the A2A schema and shows the agent's skills, capabilities and authentication. Each way the card
departs from the schema is a warning on stderr, and then the exit code is 1: checking is this
command's job.

  --verify     check the card's signatures (spec 1.0 8.4): exit 1 when it is unsigned or none verifies
  --jwks url   the keys to check them with (default: the agent's <url>/.well-known/jwks.json)`,
  send: `a2a send <url> <text...> [options]

Sends one message (tasks/send) and prints the answer: text parts as text, data parts as JSON,
files saved to --out with their names.

Options:
  --stream                 use tasks/sendSubscribe (0.3: message/stream): show status updates
                           and artifact chunks live
  --task <id>              task id (default: a new one); reuse it to answer input-required
  --session <id>           session id (0.3: context id)
  --history <n>            include the last n messages of the task
  --file <path>            attach a file (repeatable)
  --out <dir>              where received files are saved (default: the current directory)
  -H, --header "N: v"      request header (repeatable)
  --json                   print the raw responses (one JSON object per line when streaming)`,
  chat: `a2a chat <url> [--session <id>] [--header "Name: value"]

Each line you type is a message. When the agent asks for input, the next line answers on the
same task; otherwise each line starts a new task in the same session. Streams when the agent
can. Ctrl-C cancels the running task (tasks/cancel); Ctrl-C again, or Ctrl-D, leaves.`,
  get: `a2a get <url> <taskId> [--history <n>] [--json] [--header "Name: value"]`,
  cancel: `a2a cancel <url> <taskId> [--json] [--header "Name: value"]`,
  resubscribe: `a2a resubscribe <url> <taskId> [--last-event-id <id>] [--json] [--header "Name: value"]`,
  inspect: `a2a inspect [url] [--port <n>] [--host <address>] [--allow-remote] [--tls] [--ca <file>] [--cert <file> --key <file>]

Serves the A2A inspector and prints its address: open it in a browser to see the agent's cards
(checked against each version's schema), choose the version and binding to speak, chat (text,
files, data; streamed answers as they arrive), follow each task's timeline, list and open tasks,
read every request and response as sent (each one copyable as curl), and receive the agent's push
notifications with their signatures checked against its JWKS.

Options:
  --port <n>               the port to serve on (default: a free one)
  --host <address>         the address to listen on (default 127.0.0.1; the page and its
                           receiver are meant for this machine)
  --allow-remote           let --host be an address reachable from elsewhere (every interface,
                           or one of them): the inspector fetches what its page asks for, so
                           its address then carries a token made at start-up, required on
                           every call
  --tls, --ca, --cert, --key   how the inspector reaches the agent over gRPC and HTTPS (TLS,
                           mutual TLS), as for the other commands

Credentials are typed into the page and kept there; the inspector stores none.`,
  mcp: `a2a mcp <url> [--http [port]] [--host <address>] [--allowed-host <name>] [--timeout s] [credentials]

Serves an MCP server (Model Context Protocol) in front of the agent: each skill of its card is a
tool taking a message (and optionally a taskId, contextId or newTask) that sends it to the agent
(streaming when it can) and returns the answer: text as text, data parts as JSON (and in the
structured result), files as embedded resources or links. When the agent asks for more
(input-required), the result says what it asks, and the next call of that tool answers it on the
same task. Long tasks report progress when the caller gives a progressToken. docs/mcp.md.

Options:
  --http [port]            serve Streamable HTTP at http://127.0.0.1:<port>/mcp instead of stdio
                           (default port: a free one, printed)
  --host <address>         the address to listen on (default 127.0.0.1); another than loopback
                           needs --allow-remote: whoever reaches it uses the agent as you
  --allow-remote           let --host be an address reachable from elsewhere
  --allowed-host <name>    a Host header accepted (repeatable; DNS rebinding protection); default
                           for loopback: localhost, 127.0.0.1, [::1]
  --timeout s              seconds a tool call waits for the agent (default 300); the task runs on
  -H, --api-key, --bearer, --client-id, --client-secret, --scope, --protocol, --binding, --tls,
  --ca, --cert, --key      how the agent is reached, as for the other commands`,
  push: `a2a push set <url> <taskId> <webhookUrl> [--token <token>] [--json]
a2a push get <url> <taskId> [--json]`,
  check: `a2a check <url> [--message text] [--slow-message text] [--rate n] [--only id,...] [--json] [--junit file] [--header "Name: value"]
         [--tls] [--ca <file>] [--cert <file> --key <file>]

Reads every card the agent serves (1.0, 0.3, 0.1.0) and runs the checks that apply to what they
declare: the cards against each version's published schema, each method's answer, the errors the
spec names for bad calls, streaming, gRPC where a card lists it. Each check names its spec section
and level; docs/check.md lists them. It sends its own messages only (--message, default "hello"), at most --rate requests
a second (default 20) and 300 in all, and cancels the tasks it started that still run.

Safe to point at an agent you do not trust: the --header credentials go to <url>'s origin only
(not to other origins its cards name, nor as their gRPC metadata), no redirect is followed, every
body is read to a bound, and the whole check ends by its deadline.

  --message text     the text of the messages it sends (one the agent accepts)
  --slow-message t   a message the agent takes a second or more over, for subscribing to a running task
  --rate n           most requests a second
  --only id,...      only the checks whose id starts with one of these (1.0-jsonrpc, card-)
  --json             the report as JSON, on stdout
  --junit file       the report as JUnit XML too, for CI
  --send-headers-to origin   another origin (https://host:port; gRPC: host:port) the --header
                     credentials may go to, when the cards list interfaces there (repeatable)
  --timeout s        seconds a request may take, its whole answer read (default 10); an interface
                     that times out once is given up
  --deadline s       seconds the whole check may take (default 300); the checks not run by then
                     are reported skipped
  --tls, --ca, --cert, --key   TLS and mutual TLS for the agent's https:// and gRPC interfaces, as
                     for the other commands (gRPC is plaintext without one of them)

Exit code: 0 when no MUST failed, 1 when one did, 2 for a usage error.`,
};

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  json: { type: 'boolean' },
  header: { type: 'string', short: 'H', multiple: true },
  stream: { type: 'boolean' },
  task: { type: 'string' },
  session: { type: 'string' },
  history: { type: 'string' },
  file: { type: 'string', multiple: true },
  out: { type: 'string' },
  token: { type: 'string' },
  'last-event-id': { type: 'string' },
  strict: { type: 'boolean' },
  protocol: { type: 'string' },
  binding: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  'allow-remote': { type: 'boolean' },
  message: { type: 'string' },
  'slow-message': { type: 'string' },
  rate: { type: 'string' },
  only: { type: 'string' },
  junit: { type: 'string' },
  'send-headers-to': { type: 'string', multiple: true },
  timeout: { type: 'string' },
  deadline: { type: 'string' },
  verify: { type: 'boolean' },
  jwks: { type: 'string' },
  tls: { type: 'boolean' },
  ca: { type: 'string' },
  cert: { type: 'string' },
  key: { type: 'string' },
  http: { type: 'boolean' },
  'allowed-host': { type: 'string', multiple: true },
  'api-key': { type: 'string' },
  bearer: { type: 'string' },
  'client-id': { type: 'string' },
  'client-secret': { type: 'string' },
  scope: { type: 'string' },
} as const;

class UsageError extends Error {}

/** Departures from the spec warned about so far (`a2a card` fails on any: checking is its job). */
let departures = 0;

type Options = ReturnType<typeof parse>['values'];

function parse(argv: string[]) {
  return parseArgs({ args: httpPortAsOption(argv), options: OPTIONS, allowPositionals: true, strict: true });
}

/** `--http 8080` and `--http=8080` (an optional value, which parseArgs has not) as `--http --port 8080`. */
function httpPortAsOption(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const inline = /^--http=(.*)$/.exec(arg);
    if (inline) out.push('--http', '--port', inline[1]!);
    else if (arg === '--http' && /^\d+$/.test(argv[i + 1] ?? '')) out.push('--http', '--port', argv[++i]!);
    else out.push(arg);
  }
  return out;
}

async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (!command) {
    console.log(HELP.main);
    return values.help ? 0 : 2;
  }
  if (values.help) {
    console.log(HELP[command] ?? HELP.main);
    return 0;
  }
  if (command === 'inspect') return inspect(rest[0], values);
  if (command === 'check') return check(rest[0], values);
  const [url, ...args] = command === 'push' ? rest.slice(1) : rest;
  if (!url) throw new UsageError(`${command}: the agent's URL is missing`);
  // Agents we do not control depart from the spec in small ways (a part without `type`): show what
  // came back and say how it departs, unless --strict.
  const base = agentUrl(url);
  const headers = headersOf(values.header);
  const tls = tlsOf(values);
  const httpsFetch = await httpsFetchOf(tls);
  const protocol = await protocolOf(values.protocol, base, headers, httpsFetch);
  const { agentApi, bindingRefusal } = await import('./cli-agent.js');
  const options = {
    headers,
    ...(httpsFetch && { fetch: httpsFetch }),
    grpc: grpcOptionsOf(tls),
    ...(values.binding !== undefined ? { preferredBinding: bindingOf(values.binding) } : {}),
    validateResponses: values.strict ? 'strict' : 'warn',
    onDeparture: ({ what, issues }) => {
      departures += issues.length;
      for (const issue of issues)
        console.error(yellow(`warning: the ${what} departs from the A2A spec: ${issue.path || '(root)'} ${issue.message}`));
    },
  } satisfies import('./cli-agent.js').AgentApiOptions;
  const given = givenCredentials(values);
  let agent = agentApi(protocol, base, options);
  if (given) {
    // The card says which schemes the credentials go to: read it (it is public) before the client that uses them is made.
    const { raw } = await agent.card();
    agent.close?.();
    agent = agentApi(protocol, base, { ...options, ...(await credentialsFor(given, raw, headers)) });
  }
  if (options.preferredBinding) {
    // The client takes a binding its card does not list as a wish; the flag is an order.
    const refusal = await bindingRefusal(agent, options.preferredBinding);
    if (refusal) {
      agent.close?.();
      const { A2AClientError } = await import('./errors.js');
      throw new A2AClientError(`--binding ${values.binding}: ${refusal}`);
    }
  }
  switch (command) {
    case 'card':
      return showCard(agent, values, base);
    case 'send':
      if (args.length === 0 && !values.file?.length) throw new UsageError('send: nothing to send');
      return send(agent, args.join(' '), values);
    case 'chat':
      return chat(agent, values);
    case 'mcp':
      return mcp(agent, values);
    case 'get':
      return printTask(await agent.get(need(args[0], 'taskId'), values.history ? count(values.history) : undefined), values);
    case 'cancel':
      return printTask(await agent.cancel(need(args[0], 'taskId')), values);
    case 'resubscribe':
      return follow(agent.resubscribe(need(args[0], 'taskId'), values['last-event-id']), values);
    case 'push': {
      const action = rest[0];
      const id = need(args[0], 'taskId');
      const config =
        action === 'set'
          ? await agent.setPush(id, { url: need(args[1], 'webhookUrl'), ...(values.token ? { token: values.token } : {}) })
          : action === 'get'
            ? await agent.getPush(id)
            : undefined;
      if (config === undefined) throw new UsageError('push: use "push set" or "push get"');
      console.log(JSON.stringify(config, null, values.json ? undefined : 2));
      return 0;
    }
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  }
}

/** Serves the inspector until Ctrl-C. */
async function inspect(url: string | undefined, values: Options): Promise<number> {
  const { serveInspector } = await import('./inspector/server.js');
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port takes a port number, got ${values.port}`);
  const tls = tlsOf(values);
  const httpsFetch = await httpsFetchOf(tls);
  let inspector: Awaited<ReturnType<typeof serveInspector>>;
  try {
    inspector = await serveInspector({
      ...(url ? { agentUrl: agentUrl(url) } : {}),
      port,
      host: values.host ?? '127.0.0.1',
      allowRemote: values['allow-remote'] === true,
      grpc: grpcOptionsOf(tls),
      ...(httpsFetch && { fetch: httpsFetch }),
    });
  } catch (error) {
    if (error instanceof TypeError) throw new UsageError(error.message);
    throw error;
  }
  console.log(`${bold('A2A inspector')}${url ? ` for ${agentUrl(url)}` : ''}: ${inspector.url}`);
  console.log(dim('Open it in a browser. Ctrl-C stops it.'));
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await inspector.close();
  return 0;
}

/** Serves MCP for the agent: over stdio (nothing else may write to stdout) until stdin ends, or over HTTP until Ctrl-C. */
async function mcp(agent: AgentApi, values: Options): Promise<number> {
  const timeout = values.timeout === undefined ? 300 : Number(values.timeout);
  if (!Number.isFinite(timeout) || timeout <= 0 || timeout > 86_400)
    throw new UsageError(`mcp: --timeout takes a number of seconds, got ${values.timeout}`);
  // An optional peer dependency: library users need not install it (nor the Express it brings).
  await import('@modelcontextprotocol/sdk/server/index.js').catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new UsageError(
      'mcp needs the MCP SDK beside a2a-client: npm install @modelcontextprotocol/sdk (with npx: npx -y -p a2a-client -p @modelcontextprotocol/sdk a2a mcp <url>)',
    );
  });
  const { view: card } = await agent.card();
  const { serveHttp, serveStdio } = await import('./mcp.js');
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  const bridge = { timeoutMs: timeout * 1000, version, describe };
  if (!values.http) {
    if (values.port !== undefined || values.host !== undefined) throw new UsageError('mcp: --port and --host go with --http');
    await serveStdio(agent, card, bridge);
    return 0;
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--http takes a port number, got ${values.port}`);
  const host = values.host ?? '127.0.0.1';
  if (!/^(127\.\d+\.\d+\.\d+|::1|localhost)$/.test(host) && !values['allow-remote'])
    throw new UsageError(
      `mcp: --host ${host} is reachable from elsewhere, and whoever reaches the server uses the agent with your credentials: add --allow-remote (and --allowed-host) if that is meant`,
    );
  const served = await serveHttp(agent, card, bridge, {
    port,
    host,
    ...(values['allowed-host'] ? { allowedHosts: values['allowed-host'] } : {}),
  });
  console.log(`${bold('MCP server')} for ${card.name} (Streamable HTTP): ${served.url}`);
  console.error(dim('Ctrl-C stops it.'));
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await served.close();
  agent.close?.();
  return 0;
}

interface GivenCredentials {
  apiKey?: string;
  bearer?: string;
  client?: { clientId: string; clientSecret: string; scopes?: string[] };
}

/** The credentials the flags, else the environment, give; undefined when none. */
function givenCredentials(values: Options): GivenCredentials | undefined {
  const env = (name: string) => process.env[name] || undefined;
  const apiKey = values['api-key'] ?? env('A2A_API_KEY');
  const bearer = values.bearer ?? env('A2A_BEARER_TOKEN');
  const clientId = values['client-id'] ?? env('A2A_CLIENT_ID');
  const clientSecret = values['client-secret'] ?? env('A2A_CLIENT_SECRET');
  const scope = values.scope ?? env('A2A_SCOPES');
  if ((clientId === undefined) !== (clientSecret === undefined))
    throw new UsageError('--client-id and --client-secret go together (A2A_CLIENT_ID, A2A_CLIENT_SECRET)');
  const scopes = scope?.split(/[\s,]+/).filter(Boolean);
  const given: GivenCredentials = {
    ...(apiKey ? { apiKey } : {}),
    ...(bearer ? { bearer } : {}),
    ...(clientId && clientSecret ? { client: { clientId, clientSecret, ...(scopes?.length ? { scopes } : {}) } } : {}),
  };
  return Object.keys(given).length > 0 ? given : undefined;
}

/**
 * The client's `credentials` for what was given, by the card's scheme names: the API key for its
 * apiKey schemes, the bearer token for its http ones, the client credentials for its oauth2 and
 * openIdConnect ones. A key or token the card has no scheme for goes as the kit's header
 * (X-API-Key, Authorization: Bearer): many agents check one without declaring it.
 */
async function credentialsFor(
  given: GivenCredentials,
  card: unknown,
  headers: Record<string, string>,
): Promise<{ credentials?: import('./credentials.js').Credentials; headers: Record<string, string> }> {
  const { requirementsOf } = await import('./credentials.js');
  const credentials: Record<string, string | { clientId: string; clientSecret: string; scopes?: string[] }> = {};
  const placed = { apiKey: false, bearer: false, client: false };
  for (const { name, scheme } of requirementsOf(card).flat()) {
    if (scheme.kind === 'apiKey' && given.apiKey) [credentials[name], placed.apiKey] = [given.apiKey, true];
    else if (scheme.kind === 'http' && given.bearer) [credentials[name], placed.bearer] = [given.bearer, true];
    else if ((scheme.kind === 'oauth2' || scheme.kind === 'openIdConnect') && given.client)
      [credentials[name], placed.client] = [given.client, true];
  }
  if (given.client && !placed.client) throw new UsageError('--client-id: the card names no oauth2 or openIdConnect scheme to use it with');
  const extra = {
    ...(given.apiKey && !placed.apiKey ? { 'X-API-Key': given.apiKey } : {}),
    ...(given.bearer && !placed.bearer ? { authorization: `Bearer ${given.bearer}` } : {}),
  };
  return { ...(Object.keys(credentials).length ? { credentials } : {}), headers: { ...headers, ...extra } };
}

/** A CA and a client certificate as --ca, --cert and --key name them, the files read. */
type TlsFiles = { ca?: string; cert?: string; key?: string };

/**
 * TLS as --tls, --ca, --cert and --key say, for gRPC and HTTPS alike: the files read here, so
 * that a wrong path is said at once; `true` for --tls alone (the system's roots); undefined for none.
 */
function tlsOf(values: Options): true | TlsFiles | undefined {
  if ((values.cert === undefined) !== (values.key === undefined)) throw new UsageError('--cert and --key go together (mutual TLS)');
  const read = (flag: string, path: string | undefined) => {
    if (path === undefined) return {};
    try {
      return { [flag]: readFileSync(path, 'utf8') };
    } catch (error) {
      throw new UsageError(`--${flag}: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  };
  const files = { ...read('ca', values.ca), ...read('cert', values.cert), ...read('key', values.key) };
  if (Object.keys(files).length > 0) return files;
  return values.tls ? true : undefined;
}

/** gRPC's TLS as the flags say. */
function grpcOptionsOf(tls: true | TlsFiles | undefined): { tls?: true | TlsFiles } {
  return tls ? { tls } : {};
}

/** The fetch of HTTPS calls with the flags' CA and client certificate; undefined (the platform's) without them. */
async function httpsFetchOf(tls: true | TlsFiles | undefined): Promise<import('./tls.js').TlsFetch | undefined> {
  if (tls === undefined || tls === true) return undefined;
  const { tlsFetch } = await import('./tls.js');
  return tlsFetch(tls);
}

/** The binding --binding names (A2A 1.0 and 0.3 name them alike). */
function bindingOf(option: string): 'JSONRPC' | 'HTTP+JSON' | 'GRPC' {
  if (/^(jsonrpc|json-rpc)$/i.test(option)) return 'JSONRPC';
  if (/^(rest|http\+json|http-json)$/i.test(option)) return 'HTTP+JSON';
  if (/^grpc$/i.test(option)) return 'GRPC';
  throw new UsageError(`--binding takes jsonrpc, rest or grpc, got ${JSON.stringify(option)}`);
}

/** The protocol --protocol names, or the one the agent's cards show. */
async function protocolOf(
  option: string | undefined,
  base: string,
  headers: Record<string, string>,
  fetchFn: typeof fetch | undefined,
): Promise<Protocol> {
  switch (option ?? 'auto') {
    case '1':
    case '1.0':
      return '1.0';
    case '0.1':
    case '0.1.0':
      return '0.1.0';
    case '0.3':
    case '0.3.0':
      return '0.3';
    case 'auto':
      return (await import('./cli-agent.js')).detectProtocol(base, headers, fetchFn);
    default:
      throw new UsageError(`--protocol takes 0.1, 0.3, 1.0 or auto, got ${JSON.stringify(option)}`);
  }
}

/** The agent's URL as typed: `127.0.0.1:41241` and `localhost:10000` mean http://. */
function agentUrl(typed: string): string {
  const withScheme = withHttpScheme(typed);
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new UsageError(`${JSON.stringify(typed)} is not a URL (try http://host:port)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`${JSON.stringify(typed)}: only http and https agents are supported`);
  return url.toString();
}

function need(value: string | undefined, name: string): string {
  if (!value) throw new UsageError(`${name} is missing`);
  return value;
}

function count(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--history takes a whole number, got ${value}`);
  return n;
}

function headersOf(list: string[] | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const entry of list ?? []) {
    const at = entry.indexOf(':');
    if (at <= 0) throw new UsageError(`--header takes "Name: value", got ${JSON.stringify(entry)}`);
    headers[entry.slice(0, at).trim()] = entry.slice(at + 1).trim();
  }
  return headers;
}

// ---------------------------------------------------------------------------------------------

async function showCard(agent: AgentApi, values: Options, base: string): Promise<number> {
  const { raw, view } = await agent.card();
  console.log(values.json ? JSON.stringify(raw) : cardText(view, agent.protocol));
  if (!values.verify) return departures > 0 ? 1 : 0;
  if (agent.protocol === '0.1.0') throw new UsageError('--verify: A2A 0.1.0 cards have no signatures');
  const jwks = values.jwks ?? `${base.replace(/\/+$/, '')}/.well-known/jwks.json`;
  const { verifyCardSignature } = await import('./card-signature.js');
  const check = await verifyCardSignature(raw, { keys: jwks, protocol: agent.protocol });
  const said = check.valid
    ? green(`signed, valid (kid ${check.kid ?? '?'}, keys from ${jwks})`)
    : red(check.signed ? `signed, not valid: ${check.reason}${check.kid ? ` (kid ${check.kid})` : ''}` : 'unsigned');
  console.error(said);
  return departures > 0 || !check.valid ? 1 : 0;
}

/** The card for a person; read leniently, since an invalid card is shown too (with warnings). */
function cardText(card: AgentCard, protocol: Protocol): string {
  const lines = [`${bold(card.name ?? '(no name)')} ${dim(`v${card.version ?? '?'}`)}`];
  if (card.description) lines.push(card.description);
  lines.push(`${dim('endpoint')}  ${card.url} ${dim(`(A2A ${protocol})`)}`);
  if (card.provider) lines.push(`${dim('provider')}  ${card.provider.organization}`);
  const caps = Object.entries(card.capabilities ?? {}).map(([k, v]) => `${k} ${v ? green('yes') : dim('no')}`);
  lines.push(`${dim('capabilities')}  ${caps.join(', ')}`);
  const schemes = card.authentication?.schemes ?? [];
  lines.push(
    `${dim('authentication')}  ${schemes.length ? schemes.join(', ') : 'none advertised'}${card.authentication?.credentials ? dim(` ${card.authentication.credentials}`) : ''}`,
  );
  lines.push(
    `${dim('modes')}  in: ${(card.defaultInputModes ?? ['text/plain']).join(', ')}; out: ${(card.defaultOutputModes ?? ['text/plain']).join(', ')}`,
  );
  const skills = Array.isArray(card.skills) ? card.skills : [];
  lines.push(bold(`skills (${skills.length})`));
  for (const skill of skills) {
    lines.push(`  ${bold(skill.name)} ${dim(`[${skill.id}]`)}${skill.description ? ` — ${skill.description}` : ''}`);
    if (skill.tags?.length) lines.push(`    ${dim('tags')} ${skill.tags.join(', ')}`);
    for (const example of skill.examples ?? []) lines.push(`    ${dim('e.g.')} ${example}`);
  }
  return lines.join('\n');
}

function messageOf(text: string, files: string[] | undefined): Message {
  const parts: Part[] = text ? [{ type: 'text', text }] : [];
  for (const path of files ?? []) {
    if (!existsSync(path)) throw new UsageError(`--file: no file ${path}`);
    parts.push({ type: 'file', file: { name: basename(path), bytes: readFileSync(path).toString('base64'), mimeType: guessType(path) } });
  }
  return { role: 'user', parts };
}

function guessType(path: string): string {
  const types: Record<string, string> = {
    '.txt': 'text/plain',
    '.json': 'application/json',
    '.png': 'image/png',
    '.jpg': 'image/jpeg',
    '.pdf': 'application/pdf',
    '.md': 'text/markdown',
    '.csv': 'text/csv',
  };
  return types[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

async function send(agent: AgentApi, text: string, values: Options): Promise<number> {
  const message = messageOf(text, values.file);
  const to = {
    ...(values.task ? { taskId: values.task } : {}),
    ...(values.session ? { sessionId: values.session } : {}),
    ...(values.history ? { historyLength: count(values.history) } : {}),
  };
  if (values.stream) return follow(agent.stream(message, to), values);
  return printTask(await agent.send(message, to), values);
}

/** Prints a task: its artifacts, then its status (and history, if asked). */
function printTask({ raw, task }: { raw: unknown; task: Task }, values: Options): number {
  if (values.json) {
    console.log(JSON.stringify(raw));
    return 0;
  }
  for (const message of task.history ?? []) console.log(dim(`${message.role}: ${textOf(message.parts)}`));
  const printer = new PartPrinter(values.out);
  for (const artifact of task.artifacts ?? []) printer.artifact(artifact);
  printer.endLine();
  printStatus(task.status.state, task.status.message ?? undefined, task.id);
  return task.status.state === 'failed' ? 1 : 0;
}

function printStatus(state: string, message: Message | undefined, taskId: string): void {
  const color = state === 'completed' ? green : state === 'failed' || state === 'canceled' ? red : yellow;
  const text = message ? textOf(message.parts) : '';
  console.log(
    `${color(`[${state}]`)}${text ? ` ${text}` : ''}${state === 'input-required' ? dim(`  (answer with --task ${taskId})`) : ''}`,
  );
}

/**
 * Writes artifacts' parts to stdout so that they never run together: a part starts on a line of
 * its own, except text after text in the same artifact (an artifact grown by appended chunks
 * holds its text in pieces, and a streamed chunk continues the one before), which flows on as the
 * agent wrote it.
 */
class PartPrinter {
  /** The last thing written did not end its line. */
  private midLine = false;
  /** The last part written was text, which more text of the same artifact continues. */
  private afterText = false;

  constructor(private readonly out: string | undefined) {}

  /** An artifact or a chunk of one; its parts continue the previous chunk's when it appends. */
  artifact(artifact: Artifact): void {
    artifact.parts.forEach((part, i) => {
      const flowsOn = this.afterText && partKind(part) === 'text' && (i > 0 || artifact.append === true);
      if (!flowsOn) this.endLine();
      this.part(part, artifact);
    });
  }

  endLine(): void {
    if (this.midLine) process.stdout.write('\n');
    this.midLine = false;
    this.afterText = false;
  }

  private part(part: Part, artifact: Artifact): void {
    const kind = partKind(part);
    if (kind === 'text') {
      const text = (part as { text: string }).text;
      process.stdout.write(text);
      this.midLine = text !== '' && !text.endsWith('\n');
      this.afterText = true;
      return;
    }
    const line =
      kind === 'data'
        ? JSON.stringify((part as { data: unknown }).data, null, 2)
        : kind === 'file'
          ? fileLine((part as { file: FileContent }).file, this.out, artifact)
          : JSON.stringify(part);
    process.stdout.write(`${line}\n`);
    this.midLine = false;
    this.afterText = false;
  }
}

/**
 * What a part holds, read leniently: an agent we do not control may leave out `type` (warned
 * about on stderr), so a part is also known by its `text`, `data` or `file` field.
 */
function partKind(part: Part): 'text' | 'data' | 'file' | 'unknown' {
  const fields = part as { type?: unknown; text?: unknown; data?: unknown; file?: unknown };
  if (fields.type === 'text' || (fields.type === undefined && typeof fields.text === 'string')) return 'text';
  if (fields.type === 'data' || (fields.type === undefined && fields.data !== undefined)) return 'data';
  if ((fields.type === 'file' || fields.type === undefined) && typeof fields.file === 'object' && fields.file !== null) return 'file';
  return 'unknown';
}

function fileLine(file: FileContent, out: string | undefined, artifact: Artifact): string {
  if (file.bytes) return `${dim('saved')} ${saveFile(file.name, file.bytes, out, artifact)}`;
  if (file.uri) return `${dim('file')} ${file.uri}`;
  return `${dim('file')} ${file.name ?? '(no content)'}`;
}

/** Saves a received file under its own name (never a path the agent chose), without overwriting. */
function saveFile(name: string | null | undefined, bytes: string, out: string | undefined, artifact: Artifact): string {
  const dir = resolve(out ?? '.');
  const safe = basename(name || `artifact-${artifact.index ?? 0}.bin`).replace(/^\.+/, '_') || 'artifact.bin';
  let path = join(dir, safe);
  for (let i = 1; existsSync(path); i++) path = join(dir, `${basename(safe, extname(safe))}-${i}${extname(safe)}`);
  writeFileSync(path, Buffer.from(bytes, 'base64'));
  return path;
}

/** Prints a stream's events as they come; returns the exit code. */
async function follow(events: AsyncIterable<Event>, values: Options): Promise<number> {
  // Loaded with the agent's client already.
  const { isStatusUpdateEvent } = await import('a2a-types');
  let last: Event['event'] | undefined;
  const printer = new PartPrinter(values.out);
  for await (const { id, raw, event } of events) {
    last = event;
    if (values.json) {
      console.log(JSON.stringify({ id, event: raw }));
      continue;
    }
    if (isStatusUpdateEvent(event)) {
      printer.endLine();
      printStatus(event.status.state, event.status.message ?? undefined, event.id);
    } else {
      printer.artifact(event.artifact);
      if (event.artifact.lastChunk === true) printer.endLine();
    }
  }
  printer.endLine();
  return last && isStatusUpdateEvent(last) && last.status.state === 'failed' ? 1 : 0;
}

/** A one-line summary of parts (status messages, history), tolerant of parts without `type`. */
function textOf(parts: readonly Part[]): string {
  return parts
    .map((p) => {
      const kind = partKind(p);
      if (kind === 'text') return (p as { text: string }).text;
      if (kind === 'data') return JSON.stringify((p as { data: unknown }).data);
      if (kind === 'file') return `[file ${(p as { file: FileContent }).file.name ?? ''}]`;
      return JSON.stringify(p);
    })
    .join(' ');
}

// ---------------------------------------------------------------------------------------------

async function chat(agent: AgentApi, values: Options): Promise<number> {
  // Loaded with the agent's client already.
  const { isStatusUpdateEvent } = await import('a2a-types');
  const { view: card } = await agent.card();
  const sessionId = values.session ?? randomUUID();
  const streaming = card.capabilities?.streaming === true;
  console.log(`${bold(card.name)} ${dim(`— ${streaming ? 'streaming' : 'polling'}; Ctrl-C cancels a running task, Ctrl-D leaves`)}`);
  // With an output stream, readline echoes what is typed in a terminal (it puts the terminal in
  // raw mode, so without one nothing typed was shown) and draws the prompt itself.
  const terminal = process.stdin.isTTY === true && tty;
  const lines = createInterface({ input: process.stdin, output: process.stdout, terminal, prompt: bold('> ') });
  let taskId: string | undefined;
  /** The turn under way; its task id once known (a 0.3 agent names a new task in its answer). */
  let running: { id: string | undefined; abort: AbortController } | undefined;
  let spinner: NodeJS.Timeout | undefined;
  const stopSpinner = () => {
    if (spinner) process.stdout.write('\r\x1b[K');
    clearInterval(spinner);
    spinner = undefined;
  };
  const interrupt = () => {
    if (!running) return lines.close();
    const { id, abort } = running;
    stopSpinner();
    console.log(yellow('canceling…'));
    if (id === undefined) return abort.abort();
    void agent
      .cancel(id)
      .then(
        ({ task }) => printStatus(task.status.state, undefined, id),
        async (error: unknown) => console.error(red(await describe(error))),
      )
      .finally(() => abort.abort());
  };
  // Ctrl-C in a terminal reaches readline; with piped input it is the process's SIGINT.
  lines.on('SIGINT', interrupt);
  process.on('SIGINT', interrupt);
  const prompt = () => terminal && lines.prompt();
  prompt();
  for await (const line of lines) {
    const text = line.trim();
    if (!text) {
      prompt();
      continue;
    }
    const abort = new AbortController();
    const printer = new PartPrinter(values.out);
    // 0.1.0 tasks are named by the client; a new 0.3 task is named by the agent's first answer.
    if (agent.protocol === '0.1.0') taskId ??= randomUUID();
    const turn = { id: taskId, abort };
    running = turn;
    let state: string | undefined;
    try {
      const message: Message = { role: 'user', parts: [{ type: 'text', text }] };
      const to = { ...(taskId ? { taskId } : {}), sessionId };
      if (tty) {
        const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
        let i = 0;
        spinner = setInterval(() => process.stdout.write(`\r${dim(`${frames[i++ % frames.length]} working…`)}`), 100);
      }
      if (streaming) {
        for await (const { event } of agent.stream(message, to, abort.signal)) {
          stopSpinner();
          turn.id = event.id;
          if (isStatusUpdateEvent(event)) {
            printer.endLine();
            state = event.status.state;
            if (event.status.message)
              console.log(`${dim(`${card.name}:`)} ${textOf(event.status.message.parts)}${state !== 'working' ? dim(` [${state}]`) : ''}`);
            else if (event.final) console.log(dim(`[${state}]`));
          } else {
            printer.artifact(event.artifact);
            if (event.artifact.lastChunk !== false) printer.endLine();
          }
        }
        printer.endLine();
      } else {
        const { task } = await agent.send(message, to, abort.signal);
        stopSpinner();
        turn.id = task.id;
        state = task.status.state;
        for (const artifact of task.artifacts ?? []) printer.artifact(artifact);
        printer.endLine();
        if (task.status.message) console.log(`${dim(`${card.name}:`)} ${textOf(task.status.message.parts)} ${dim(`[${state}]`)}`);
      }
    } catch (error) {
      stopSpinner();
      if (!abort.signal.aborted) console.error(red(await describe(error)));
      state = 'canceled';
    } finally {
      stopSpinner();
      running = undefined;
    }
    // The next line answers the same task only when the agent asked for input.
    taskId = state === 'input-required' ? turn.id : undefined;
    prompt();
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------

async function check(url: string | undefined, values: Options): Promise<number> {
  if (!url) throw new UsageError("check: the agent's URL is missing");
  const rate = values.rate === undefined ? 20 : Number(values.rate);
  if (!Number.isFinite(rate) || rate <= 0 || rate > 1000)
    throw new UsageError(`check: --rate must be a number of requests a second (1-1000), got ${values.rate}`);
  const seconds = (value: string | undefined, name: string, fallback: number) => {
    if (value === undefined) return fallback * 1000;
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0 || n > 86_400) throw new UsageError(`check: --${name} takes a number of seconds, got ${value}`);
    return n * 1000;
  };
  const sendHeadersTo = (values['send-headers-to'] ?? []).map((origin) => {
    if (!URL.canParse(withHttpScheme(origin)))
      throw new UsageError(`check: --send-headers-to takes an origin (https://host:port), got ${JSON.stringify(origin)}`);
    return origin;
  });
  const tls = tlsOf(values);
  const httpsFetch = await httpsFetchOf(tls);
  const options = {
    headers: headersOf(values.header),
    ...(httpsFetch && { fetcher: httpsFetch }),
    ...(tls && { grpcTls: tls }),
    rate,
    timeoutMs: seconds(values.timeout, 'timeout', 10),
    deadlineMs: seconds(values.deadline, 'deadline', 300),
    sendHeadersTo,
    ...(values.message !== undefined && { message: values.message }),
    ...(values['slow-message'] !== undefined && { slowMessage: values['slow-message'] }),
    ...(values.only !== undefined && {
      only: values.only
        .split(',')
        .map((id) => id.trim())
        .filter(Boolean),
    }),
  };
  const [{ checkAgent, plan }, { junitReport, textReport }] = await Promise.all([import('./check/run.js'), import('./check/report.js')]);
  if (!values.json) console.error(dim(plan(options)));
  const report = await checkAgent(agentUrl(url), options);
  if (values.junit) writeFileSync(values.junit, junitReport(report));
  console.log(values.json ? JSON.stringify(report, null, 2) : textReport(report, { bold, dim, red, green, yellow }));
  return report.mustFailed || report.cards.length === 0 ? 1 : 0;
}

/** Says what went wrong, in a line or a few; loads the client's errors to tell them apart. */
async function describe(error: unknown): Promise<string> {
  const { A2AClientError, HttpError, InvalidResponseError, JsonRpcError, NetworkError, NotAnAgentError } = await import('./errors.js');
  if (error instanceof JsonRpcError) {
    const line = (e: InstanceType<typeof JsonRpcError>) =>
      `error ${e.code}${e.meaning && e.meaning !== e.message ? ` (${e.meaning})` : ''}: ${e.message}`;
    // A server that wraps the real error in a -32603: show both, the real one last.
    if (error.inner)
      return `${line(error)}\n  inside it: ${line(error.inner)}${error.inner.data === undefined ? '' : `\n${JSON.stringify(error.inner.data)}`}`;
    return `${line(error)}${error.data === undefined ? '' : `\n${JSON.stringify(error.data)}`}`;
  }
  if (error instanceof HttpError) {
    return /json/i.test(error.contentType ?? '') ? error.message : `${error.message}: not an A2A agent at this URL`;
  }
  if (error instanceof NotAnAgentError) return `not an A2A agent: ${error.message}`;
  if (error instanceof InvalidResponseError) return `not a valid A2A answer: ${error.message}`;
  if (error instanceof NetworkError) return error.message;
  if (error instanceof A2AClientError) return error.message;
  return `unexpected error: ${(error as Error).message}`;
}

/**
 * Ends the process once what was written to stdout and stderr has gone: `process.exit` right
 * after a write drops what a pipe has not taken yet (a report piped to jq was cut at 64 KiB).
 */
async function exit(code: number): Promise<never> {
  process.exitCode = code;
  const flushed = (stream: NodeJS.WriteStream) => new Promise<void>((resolve) => stream.write('', () => resolve()));
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit(code);
}

main(process.argv.slice(2)).then(exit, (error: unknown) => {
  if (error instanceof UsageError) {
    console.error(`${red('usage:')} ${error.message}\n${dim('a2a --help for the commands')}`);
    return exit(2);
  }
  return describe(error).then((said) => {
    console.error(red(said));
    return exit(1);
  });
});
