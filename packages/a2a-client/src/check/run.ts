// `a2a check`: reads every card an agent serves, then runs the checks that apply to what the
// cards declare (checks.ts), each version and binding over the interface its card lists. Every
// request is paced and bounded (prober.ts), the whole check by a deadline; an interface that
// times out once is given up. The tasks the checks start are canceled at the end if they still
// run. The report says what was sent and what came back for every failure.
import { isRedirect, watchedText } from '../bounded-body.js';
import type { Protocol } from '../cli-agent.js';
import { agentBase, type Discovery, discover, namesScheme, withHttpScheme } from '../inspector/discovery.js';
import { type RawEntry, recordingFetch } from '../inspector/recorder.js';
import {
  type Binding,
  CHECKS,
  type Webhook,
  CheckFailed,
  CheckSkipped,
  cancelRequest,
  type CheckDefinition,
  requiredExtensionsOf,
} from './checks.js';
import { type GrpcTlsOptions, grpcTarget } from '../grpc.js';
import { DeadlinePassed, type Exchange, Prober } from './prober.js';
import { CheckWebhook } from './webhook.js';

export interface CheckOptions {
  /** The text of the messages the checks send; default "hello". */
  message?: string;
  /**
   * A message the agent takes a while over (a second or more): the checks that need a task still
   * running (subscribing to it) send it. Default: the message, and those checks are skipped
   * when its task has ended already.
   */
  slowMessage?: string;
  /**
   * Headers (authentication) for the agent's own origin, the one of `url`: a card can name any
   * address, and they are not sent there (nor as gRPC metadata) unless listed in `sendHeadersTo`.
   */
  headers?: Record<string, string>;
  /**
   * Other origins the headers go to (`https://host:port`; for a gRPC interface its `host:port`
   * will do), when the card's interfaces are elsewhere and you trust them with the credentials.
   */
  sendHeadersTo?: readonly string[];
  /** Most requests a second; default 20. */
  rate?: number;
  /** Most requests in all; default 300. */
  maxRequests?: number;
  /** Per request, reading its whole answer included; default 10 s. An interface that times out once is given up. */
  timeoutMs?: number;
  /**
   * The whole check's; default 300 s. Checks not run by then are skipped, saying so; the tasks
   * started are still canceled after it (each cancel within `timeoutMs`).
   */
  deadlineMs?: number;
  /** Only the checks whose id starts with one of these. */
  only?: readonly string[];
  /** The fetch of every HTTP request: `tlsFetch()` from a2a-client/tls for a CA of your own or a client certificate. */
  fetcher?: typeof fetch;
  /** TLS for the gRPC interfaces: `true` (the system's roots), or a CA and a client certificate. Default plaintext. */
  grpcTls?: boolean | GrpcTlsOptions;
  /** Told of every request, answer and stream event as they cross (the inspector's raw log); each exchange then has its `logId`. */
  record?: (entry: RawEntry) => void;
}

export type Outcome = 'passed' | 'failed' | 'skipped';

/** A check as it ran: what it is (its definition but its run), and what came of it. */
export interface CheckResult extends Omit<CheckDefinition, 'run'> {
  outcome: Outcome;
  /** Why it failed or was skipped. */
  reason?: string;
  /** The requests it sent, and the answers. */
  exchanges: Exchange[];
  ms: number;
}

export interface CheckReport {
  agent: string;
  /** The cards read: version and URL. */
  cards: { version: Protocol; url: string }[];
  /** Cards that could not be read, and why. */
  unreadable: { url: string; reason: string }[];
  /** What the check left out, and why: interfaces past the cap a card lists, checks past the deadline. */
  limits: string[];
  /** Origins (gRPC: addresses) the cards name that were sent no credentials: they are not the agent's (`sendHeadersTo`). */
  credentialsWithheld: string[];
  results: CheckResult[];
  /**
   * The tasks the checks started, and what the cleanup found: `canceled`, `ended` (it had ended:
   * the agent refused to cancel it), or `left` (the cancel failed otherwise).
   */
  tasks: { taskId: string; version: Protocol; binding: Binding; endpoint: string; cleanup: 'canceled' | 'ended' | 'left' | 'pending' }[];
  counts: Record<Outcome, number>;
  /** Whether a MUST failed (the CLI then exits 1). */
  mustFailed: boolean;
}

/** What the checks will send, said before they send it. */
export function plan(options: CheckOptions = {}): string {
  return [
    `a2a check sends its own messages only ("${options.message ?? 'hello'}"), at most ${options.rate ?? 20} requests a second and ${options.maxRequests ?? 300} in all,`,
    'asks for tasks that do not exist, sends malformed calls to see the errors, and cancels every task it started that is still running.',
  ].join('\n');
}

export async function checkAgent(url: string, options: CheckOptions = {}): Promise<CheckReport> {
  const fetcher = options.fetcher ?? fetch;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const deadlineMs = options.deadlineMs ?? 300_000;
  const prober = new Prober({
    headers: options.headers ?? {},
    trusts: trustedBy(url, options.sendHeadersTo ?? []),
    rate: options.rate ?? 20,
    maxRequests: options.maxRequests ?? 300,
    timeoutMs,
    deadline: performance.now() + deadlineMs,
    fetcher,
    ...(options.grpcTls && { grpcTls: options.grpcTls === true ? {} : options.grpcTls }),
    ...(options.record && { record: options.record }),
  });
  // The cards' requests are kept, for a card check to show what it read.
  const cardExchanges: Exchange[] = [];
  let loggedAs: number | undefined;
  const cardFetcher = options.record
    ? recordingFetch((entry) => {
        if (entry.type === 'request') loggedAs = entry.exchange;
        options.record!(entry);
      }, fetcher)
    : fetcher;
  const recording: typeof fetch = async (input, init) => {
    const exchange: Exchange = {
      request: { method: 'GET', url: String(input), headers: Object.fromEntries(new Headers(init?.headers)) },
    };
    cardExchanges.push(exchange);
    try {
      loggedAs = undefined;
      const answer = cardFetcher(input, init);
      if (loggedAs !== undefined) exchange.logId = loggedAs;
      const response = await answer;
      // The body as discovery reads it (to its bound), not a second copy of it.
      return watchedText(response, (body, cut) => {
        exchange.response = { status: response.status, headers: Object.fromEntries(response.headers), body };
        if (cut !== undefined) exchange.error = cut;
      });
    } catch (error) {
      exchange.error = (error as Error).message;
      throw error;
    }
  };
  const discovery = await discover(url, recording, options.headers ?? {});
  const results: CheckResult[] = [];
  const started: CheckReport['tasks'] = [];
  const selected = CHECKS.filter((check) => !options.only || options.only.some((prefix) => check.id.startsWith(prefix)));
  // The push checks' webhook, started when one first asks for it.
  let webhook: Promise<CheckWebhook> | undefined;
  const webhookOnce = () => (webhook ??= new CheckWebhook().start());
  /** Interfaces that did not answer at all, or timed out, and the check that found it: their other checks are skipped. */
  const silent = new Map<string, string>();
  const deadlineReason = `the check’s deadline (${deadlineMs / 1000} s) passed before this check ran`;
  let pastDeadline = 0;

  const targets = targetsOf(discovery);
  const endpoints = new Map(targets.flatMap((t) => [...t.endpoints].map(([binding, url]) => [`${t.version} ${binding}`, url] as const)));
  for (const target of targets) {
    for (const check of selected.filter((c) => c.version === target.version)) {
      const endpoint = check.binding === 'card' ? target.cardUrl : target.endpoints.get(check.binding);
      if (!endpoint) continue;
      const unanswered = prober.pastDeadline ? deadlineReason : silent.get(endpoint);
      if (unanswered) {
        if (unanswered === deadlineReason) pastDeadline++;
        const { id, title, version, binding, section, level } = check;
        results.push({ id, title, version, binding, section, level, outcome: 'skipped', reason: unanswered, exchanges: [], ms: 0 });
        continue;
      }
      const result = await runOne(check, {
        url: endpoint,
        card: target.card,
        cardProblems: target.cardProblems,
        message: options.message ?? 'hello',
        slowMessage: options.slowMessage,
        requiredExtensions: requiredExtensionsOf(target.card),
        prober,
        timeoutMs,
        givenUp: () => silent.get(endpoint),
        webhook: webhookOnce,
        endpoints,
        cardExchanges: check.binding === 'card' ? cardExchanges.filter((e) => e.request.url === endpoint) : [],
        started: (taskId) => {
          if (!started.some((t) => t.taskId === taskId))
            started.push({ taskId, version: check.version, binding: check.binding, endpoint, cleanup: 'pending' });
        },
      });
      results.push(result);
      // An interface that timed out once is given up: an agent that drips its answers would
      // otherwise hold every one of its checks for the whole timeout.
      if (check.binding !== 'card' && result.exchanges.some((e) => e.timedOut))
        silent.set(endpoint, `the interface at ${endpoint} timed out in ${check.id}: given up, its other checks not run`);
      // Every request of a failed check without an answer (refused, timed out): the card names an interface that is not there.
      else if (
        check.binding !== 'card' &&
        result.outcome === 'failed' &&
        result.exchanges.length > 0 &&
        result.exchanges.every((e) => !e.response || (e as { grpc?: { name: string } }).grpc?.name === 'UNAVAILABLE')
      )
        silent.set(
          endpoint,
          `the interface the card lists at ${endpoint} does not answer (${result.exchanges[0]!.error}): see ${check.id}`,
        );
    }
  }
  const limits = [...discovery.limits];
  if (pastDeadline > 0) limits.push(`the check’s deadline (${deadlineMs / 1000} s) passed: ${pastDeadline} checks were not run`);

  // The cleanup: a task still running is canceled over the version and binding that started it
  // (with the extensions its version's card requires), even past the deadline, each cancel
  // within the request timeout; not over an interface given up.
  const requiredBy = new Map(targets.map((target) => [target.version, requiredExtensionsOf(target.card)]));
  const pending = started.filter((task) => !silent.has(task.endpoint));
  for (const task of started) if (silent.has(task.endpoint)) task.cleanup = 'left';
  if (pending.length > 0) prober.extendDeadline(timeoutMs * Math.min(pending.length, 3));
  for (const task of pending) {
    const required = requiredBy.get(task.version) ?? [];
    if (task.binding === 'GRPC') {
      const metadata = { 'a2a-version': '1.0', ...(required.length > 0 && { 'a2a-extensions': required.join(',') }) };
      const answer = await prober.grpc(task.endpoint, 'CancelTask', { id: task.taskId }, metadata).catch(() => undefined);
      task.cleanup = answer?.grpc?.code === 0 ? 'canceled' : answer?.grpc?.name === 'FAILED_PRECONDITION' ? 'ended' : 'left';
      continue;
    }
    const { url: cancelUrl, init } = cancelRequest(task.version, task.binding, task.endpoint, task.taskId);
    const answer = await prober.send('POST', cancelUrl, withRequired(init, required, task.version)).catch(() => undefined);
    task.cleanup = cleanupOf(answer?.response);
  }

  await (await webhook)?.close();
  await prober.close();

  const counts = { passed: 0, failed: 0, skipped: 0 };
  for (const result of results) counts[result.outcome]++;
  return {
    agent: discovery.base,
    cards: discovery.cards.map((c) => ({ version: c.protocol, url: c.url })),
    unreadable: discovery.failures,
    limits,
    credentialsWithheld: [...prober.withheldFrom],
    results,
    tasks: started,
    counts,
    mustFailed: results.some((r) => r.outcome === 'failed' && r.level === 'MUST'),
  };
}

/**
 * Whether the user's headers go to a URL (or a gRPC `host:port`): to the agent's own origin, and
 * to those `sendHeadersTo` lists. A gRPC address matches an origin of the same host and port.
 */
export function trustedBy(agentUrl: string, sendHeadersTo: readonly string[]): (target: string) => boolean {
  const origins = new Set<string>();
  const addresses = new Set<string>();
  for (const entry of [agentBase(agentUrl), ...sendHeadersTo]) {
    const parsed = new URL(withHttpScheme(entry));
    origins.add(`${parsed.protocol}//${parsed.host}`);
    addresses.add(addressOf(parsed));
  }
  return (target) => {
    if (namesScheme(target)) {
      if (!URL.canParse(target)) return false;
      const parsed = new URL(target);
      return origins.has(`${parsed.protocol}//${parsed.host}`);
    }
    return URL.canParse(`http://${target}`) && addresses.has(addressOf(new URL(`http://${target}`)));
  };
}

/** `host:port`, the port said even when it is the scheme's own. */
function addressOf(url: URL): string {
  return `${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
}

const CHECKED_BINDINGS: readonly string[] = ['JSONRPC', 'HTTP+JSON', 'GRPC'];

/**
 * A gRPC interface as the checks dial it: its host:port, whether the card writes a scheme or
 * not, kept as `grpcs://host:port` when the card's URL asks for TLS (grpcs://, https://), so
 * that the prober never dials it in plaintext.
 */
function grpcEndpoint(url: string): string {
  const { address, tls } = grpcTarget(url);
  return tls ? `grpcs://${address}` : address;
}

/** What the checks of one version run against: its card (if it has one of its own) and its endpoints by binding. */
interface Target {
  version: Protocol;
  card: Record<string, unknown>;
  /** Where its own card is; undefined for a version a 1.0 card lists without a card of its own. */
  cardUrl: string | undefined;
  cardProblems: readonly { path: string; message: string }[];
  endpoints: Map<Binding, string>;
}

/**
 * A target per card found, with the interfaces it lists that the checks speak; and a 0.3
 * interface a 1.0 card lists, where no 0.3 card is served (the SDK 1.x serves 0.3 that way):
 * its calls are checked, against the 1.0 card's capabilities.
 */
function targetsOf(discovery: Discovery): Target[] {
  const targets: Target[] = discovery.cards.map((card) => ({
    version: card.protocol,
    card: (card.card ?? {}) as Record<string, unknown>,
    cardUrl: card.url,
    cardProblems: card.problems,
    endpoints: new Map(
      discovery.interfaces
        .filter((i) => i.protocol === card.protocol && i.supported && CHECKED_BINDINGS.includes(i.binding))
        .map((i) => [i.binding as Binding, i.binding === 'GRPC' ? grpcEndpoint(i.url) : i.url]),
    ),
  }));
  const card10 = targets.find((t) => t.version === '1.0');
  if (card10 && !targets.some((t) => t.version === '0.3')) {
    const listed = (
      (card10.card.supportedInterfaces ?? []) as { url?: unknown; protocolBinding?: unknown; protocolVersion?: unknown }[]
    ).find(
      (i) =>
        /^0\.3(\.\d+)?$/.test(String(i.protocolVersion)) &&
        String(i.protocolBinding).toUpperCase() === 'JSONRPC' &&
        typeof i.url === 'string',
    );
    if (listed)
      targets.push({
        version: '0.3',
        card: card10.card,
        cardUrl: undefined,
        cardProblems: [],
        endpoints: new Map([['JSONRPC', listed.url as string]]),
      });
  }
  return targets;
}

/** A request's headers with the extensions a card requires, in its version's header, unless the request names that header itself. */
function withRequired(
  init: { headers?: Record<string, string>; body?: string } | undefined,
  required: readonly string[],
  version: Protocol,
): { headers?: Record<string, string>; body?: string } | undefined {
  const header = version === '1.0' ? 'A2A-Extensions' : version === '0.3' ? 'X-A2A-Extensions' : undefined;
  if (!header || required.length === 0) return init;
  const headers = init?.headers ?? {};
  if (Object.keys(headers).some((name) => name.toLowerCase() === header.toLowerCase())) return init;
  return { ...init, headers: { ...headers, [header]: required.join(',') } };
}

/** What a cancel's answer says of the task: canceled, ended already (TaskNotCancelable: -32002, or 400 over HTTP+JSON), or left. */
function cleanupOf(response: { status: number; body: string } | undefined): CheckReport['tasks'][number]['cleanup'] {
  if (!response) return 'left';
  let body: { error?: { code?: unknown } } = {};
  try {
    body = JSON.parse(response.body);
  } catch {
    return 'left';
  }
  if (response.status === 200 && !body.error) return 'canceled';
  if (body.error?.code === -32002 || response.status === 400) return 'ended';
  return 'left';
}

async function runOne(
  check: CheckDefinition,
  context: {
    url: string;
    card: Record<string, unknown>;
    cardProblems: readonly { path: string; message: string }[];
    message: string;
    slowMessage: string | undefined;
    /** The extensions the card requires: asked for on every call. */
    requiredExtensions: readonly string[];
    prober: Prober;
    timeoutMs: number;
    /** Why the interface was given up, once it has been (it timed out): nothing more is sent to it. */
    givenUp: () => string | undefined;
    webhook: () => Promise<Webhook>;
    endpoints: ReadonlyMap<string, string>;
    /** For a card check: the requests that read the card. */
    cardExchanges: Exchange[];
    started: (taskId: string) => void;
  },
): Promise<CheckResult> {
  const exchanges: Exchange[] = [...context.cardExchanges];
  const begun = performance.now();
  const { id, title, version, binding, section, level } = check;
  const result = (outcome: Outcome, reason?: string): CheckResult => ({
    id,
    title,
    version,
    binding,
    section,
    level,
    outcome,
    ...(reason !== undefined && { reason }),
    exchanges,
    ms: Math.round(performance.now() - begun),
  });
  try {
    await check.run({
      url: context.url,
      card: context.card,
      cardProblems: context.cardProblems,
      message: context.message,
      slowMessage: context.slowMessage,
      started: context.started,
      webhook: context.webhook,
      endpoints: context.endpoints,
      // The extensions the card requires go with every call, unless the check names its own.
      send: async (method, url, init) => {
        const exchange = await guarded(
          { method, url, headers: init?.headers ?? {} },
          () => context.prober.send(method, url, withRequired(init, context.requiredExtensions, check.version)),
          context.givenUp(),
        );
        exchanges.push(exchange);
        return exchange;
      },
      grpc: async (method, request, metadata = {}) => {
        const withExtensions =
          context.requiredExtensions.length > 0 && !('a2a-extensions' in metadata)
            ? { ...metadata, 'a2a-extensions': context.requiredExtensions.join(',') }
            : metadata;
        const exchange = await guarded(
          { method: 'gRPC', url: `${context.url} ${method}`, headers: withExtensions },
          () => context.prober.grpc(context.url, method, request, withExtensions),
          context.givenUp(),
        );
        exchanges.push(exchange);
        return exchange;
      },
    });
    const ended = endedBy(exchanges, context.timeoutMs);
    if (ended) return result(ended.outcome, ended.reason);
    return result('passed');
  } catch (error) {
    // A timeout, the deadline or a redirect says more than what the check made of the answer.
    const ended = endedBy(exchanges, context.timeoutMs);
    if (ended) return result(ended.outcome, ended.reason);
    if (error instanceof CheckSkipped) return result('skipped', error.message);
    if (error instanceof CheckFailed) return result('failed', error.message);
    return result('failed', `the check could not finish: ${(error as Error).message}`);
  }
}

/**
 * A request, unless its interface has been given up or the deadline has passed: then an exchange
 * that says why it was not sent (never a throw, which a check running two requests at once could
 * leave unhandled).
 */
async function guarded<T extends Exchange>(
  request: Exchange['request'],
  send: () => Promise<T>,
  givenUp: string | undefined,
): Promise<T | Exchange> {
  if (givenUp) return { request, error: `not sent: ${givenUp}` };
  try {
    return await send();
  } catch (error) {
    if (error instanceof DeadlinePassed) return { request, error: 'not sent: the check’s deadline passed', pastDeadline: true };
    throw error;
  }
}

/** What a check's exchanges make of it whatever it concluded: failed by a timeout or a redirect, skipped by the deadline. */
function endedBy(exchanges: readonly Exchange[], timeoutMs: number): { outcome: Outcome; reason: string } | undefined {
  const timedOut = exchanges.find((e) => e.timedOut);
  if (timedOut) return { outcome: 'failed', reason: `timeout: no whole answer from ${timedOut.request.url} within ${timeoutMs} ms` };
  const redirected = exchanges.find((e) => e.response && isRedirect(e.response.status) && !('grpc' in e));
  if (redirected) {
    const location = redirected.response!.headers.location;
    return {
      outcome: 'failed',
      reason: `HTTP ${redirected.response!.status} from ${redirected.request.url}, a redirect${location ? ` to ${location.slice(0, 200)}` : ''}: not followed (a redirect could carry the request and its credentials elsewhere)`,
    };
  }
  if (exchanges.some((e) => e.pastDeadline)) return { outcome: 'skipped', reason: 'the check’s deadline passed before it finished' };
  return undefined;
}
