// `a2a check`: reads every card an agent serves, then runs the checks that apply to what the
// cards declare (checks.ts), each version and binding over the interface its card lists. Every
// request is paced and bounded (prober.ts); the tasks the checks start are canceled at the end
// if they still run. The report says what was sent and what came back for every failure.
import type { Protocol } from '../cli-agent.js';
import { type Discovery, discover } from '../inspector/discovery.js';
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
import { type Exchange, Prober } from './prober.js';
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
  /** Headers every request carries (authentication). */
  headers?: Record<string, string>;
  /** Most requests a second; default 20. */
  rate?: number;
  /** Most requests in all; default 300. */
  maxRequests?: number;
  /** Per request; default 10 s. */
  timeoutMs?: number;
  /** Only the checks whose id starts with one of these. */
  only?: readonly string[];
  fetcher?: typeof fetch;
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
  const prober = new Prober({
    headers: options.headers ?? {},
    rate: options.rate ?? 20,
    maxRequests: options.maxRequests ?? 300,
    timeoutMs: options.timeoutMs ?? 10_000,
    fetcher,
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
      const body = await response.clone().text();
      exchange.response = { status: response.status, headers: Object.fromEntries(response.headers), body };
      return response;
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
  /** Interfaces that did not answer at all, and the check that found it: their other checks are skipped. */
  const silent = new Map<string, string>();

  const targets = targetsOf(discovery);
  const endpoints = new Map(targets.flatMap((t) => [...t.endpoints].map(([binding, url]) => [`${t.version} ${binding}`, url] as const)));
  for (const target of targets) {
    for (const check of selected.filter((c) => c.version === target.version)) {
      const endpoint = check.binding === 'card' ? target.cardUrl : target.endpoints.get(check.binding);
      if (!endpoint) continue;
      const unanswered = silent.get(endpoint);
      if (unanswered) {
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
        webhook: webhookOnce,
        endpoints,
        cardExchanges: check.binding === 'card' ? cardExchanges.filter((e) => e.request.url === endpoint) : [],
        started: (taskId) => {
          if (!started.some((t) => t.taskId === taskId))
            started.push({ taskId, version: check.version, binding: check.binding, endpoint, cleanup: 'pending' });
        },
      });
      results.push(result);
      // Every request of a failed check without an answer (refused, timed out): the card names an interface that is not there.
      if (
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

  // The cleanup: a task still running is canceled over the version and binding that started it
  // (with the extensions its version's card requires).
  const requiredBy = new Map(targets.map((target) => [target.version, requiredExtensionsOf(target.card)]));
  for (const task of started) {
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
    results,
    tasks: started,
    counts,
    mustFailed: results.some((r) => r.outcome === 'failed' && r.level === 'MUST'),
  };
}

const CHECKED_BINDINGS: readonly string[] = ['JSONRPC', 'HTTP+JSON', 'GRPC'];

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
        // A gRPC interface is dialled at its host:port, whether the card writes a scheme or not.
        .map((i) => [
          i.binding as Binding,
          i.binding === 'GRPC' ? i.url.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/\/+$/, '') : i.url,
        ]),
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
        const exchange = await context.prober.send(method, url, withRequired(init, context.requiredExtensions, check.version));
        exchanges.push(exchange);
        return exchange;
      },
      grpc: async (method, request, metadata = {}) => {
        const withExtensions =
          context.requiredExtensions.length > 0 && !('a2a-extensions' in metadata)
            ? { ...metadata, 'a2a-extensions': context.requiredExtensions.join(',') }
            : metadata;
        const exchange = await context.prober.grpc(context.url, method, request, withExtensions);
        exchanges.push(exchange);
        return exchange;
      },
    });
    return result('passed');
  } catch (error) {
    if (error instanceof CheckSkipped) return result('skipped', error.message);
    if (error instanceof CheckFailed) return result('failed', error.message);
    return result('failed', `the check could not finish: ${(error as Error).message}`);
  }
}
