// Push notifications: accepting a webhook config (SSRF guard, optional ownership check) and
// delivering signed notifications off the request path, in order per task, with a timeout and
// bounded retries.
import { A2AError, type PushNotificationConfig } from 'a2a-types/model';
import { isStatusUpdateEvent, type StoredPushConfig, type TaskStatusUpdateEvent } from '../model/task.js';
import type { Logger } from 'pino';
import type { TaskRecord, TaskUpdateResult } from '../model/record.js';
import { NotificationSigner, type SigningKeyInput } from './signer.js';
import { UrlGuard, type ResolvedAddress, type Resolver } from './url-guard.js';
import type { WebhookAnswer, WebhookDelivery } from './delivery.js';
import { fetchDelivery } from './fetch-delivery.js';
import { nodeDelivery } from './node-delivery.js';
import type { A2AMetrics, PushOutcome } from '../telemetry/metrics.js';
import {
  A2A_ATTRIBUTES,
  failSpan,
  injectBoundaryTraceContext,
  currentContext,
  SpanKind,
  startChildSpan,
  trace,
  type Attributes,
  type Context,
} from '../telemetry/tracing.js';

/** Options of push notifications (`a2aRouter(handler, { pushNotifications: { ... } })`). */
export interface PushNotificationOptions {
  /**
   * The private key that signs notifications: a JWK or a PEM string. Default: a new RSA key
   * made at start-up. Give every replica of an agent the same key so that one JWKS verifies all.
   */
  signingKey?: SigningKeyInput;
  /** Key id; default the JWK's `kid`, else its RFC 7638 thumbprint. */
  signingKeyId?: string;
  /** JWS algorithm; default from the key (RSA → RS256, the reference agent's). */
  signingAlgorithm?: string;
  /** Host names and CIDRs webhooks may use although not public (and with plain http). */
  allowlist?: readonly string[];
  /**
   * Before first use of a URL, GET it with `?validationToken=<uuid>` and require the token
   * echoed back, as the reference agent does. Default false.
   */
  verifyOwnership?: boolean;
  /**
   * URLs that passed the ownership check are remembered, so that they are not checked again on
   * every use: at most this many, the least recently used forgotten first (and checked again
   * when next used). Default 10,000.
   */
  maxVerifiedUrls?: number;
  /** Time allowed for each delivery attempt, milliseconds. Default 5,000. */
  timeoutMs?: number;
  /** Further attempts after a 5xx or network failure. Default 3. */
  retries?: number;
  /** Wait before the first retry, doubled for each next one, milliseconds. Default 250. */
  retryBackoffMs?: number;
  /** Most notifications waiting per webhook of a task; past it the newest are dropped (logged). Default 100. */
  maxQueuedPerTask?: number;
  /**
   * How notifications travel. `'node'`: Node's http and https (on Node, Bun and Deno), each
   * connection made only to the addresses the URL guard checked, so that a DNS answer changing
   * between the check and the connection cannot lead it elsewhere. `'fetch'`: the runtime's
   * fetch, which resolves the host name again itself. Default: `'node'` wherever the runtime has
   * Node's http, https and dns (the fetch handler's on Node, Bun and Deno too), else `'fetch'`
   * (Cloudflare Workers).
   */
  delivery?: 'node' | 'fetch';
  /**
   * How host names are resolved for the URL guard. Default the system resolver (node:dns's
   * `lookup`) where the runtime has one; with the fetch delivery on a runtime that has none
   * (Cloudflare Workers), none: see `unresolvedHostNames`.
   */
  resolve?: Resolver;
  /**
   * Where host names cannot be resolved (no `resolve`, on a runtime without node:dns, such as
   * Cloudflare Workers): `'refuse'` a webhook URL by host name unless the host is on the
   * allow-list, or `'allow'` an https one unchecked. Only `'allow'` on a runtime whose network
   * reaches nothing private (a Worker's does not reach yours). Default `'refuse'`.
   */
  unresolvedHostNames?: 'refuse' | 'allow';
  /**
   * Keys of the caller's W3C baggage that deliveries pass on to webhooks. A webhook's URL is the
   * client's choice, so by default a delivery carries `traceparent` alone: no baggage (which a
   * gateway may fill with user ids) and no caller's `tracestate`. Default none.
   */
  forwardBaggage?: readonly string[];
}

/**
 * The body of one notification: the protocol version the webhook was set over says what it is.
 * Each version supplies its own; the notifier knows none of them.
 */
export type PushBody = (record: TaskRecord, event: TaskStatusUpdateEvent, eventId: number) => object;

/** How a version delivers its notifications. */
export interface PushFormat {
  readonly body: PushBody;
  /** The body's media type. Default `application/json`. */
  readonly contentType?: string;
  /**
   * Send the config's own credentials (`authentication`: scheme and credentials) in
   * `Authorization`, as A2A 1.0 requires (4.3.3), and the kit's signature in
   * `A2A-Notification-Signature`. Default false: the signature in `Authorization`, as `Bearer`.
   */
  readonly credentialsInAuthorization?: boolean;
}

/** The versions' push formats, by the version a config was set over. */
type PushBodies = Readonly<Record<string, PushFormat>>;

interface Queue {
  tail: Promise<void>;
  pending: number;
}

export class PushNotifier {
  readonly signer: NotificationSigner;
  private readonly guard: UrlGuard;
  /** How notifications travel (Node's http, or fetch). */
  readonly delivery: WebhookDelivery;
  /** URLs that passed the ownership check, least recently used first (a Map keeps insertion order). */
  private readonly verified = new Map<string, true>();
  private readonly maxVerifiedUrls: number;
  private readonly queues = new Map<string, Queue>();
  private readonly stopping = new AbortController();
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly retryBackoffMs: number;
  private readonly maxQueuedPerTask: number;
  private readonly forwardedBaggage: ReadonlySet<string>;

  constructor(
    private readonly options: PushNotificationOptions,
    private readonly logger: Logger,
    private readonly bodies: PushBodies,
    private readonly metrics?: Pick<A2AMetrics, 'pushEnded' | 'pushRetried'>,
  ) {
    this.signer = NotificationSigner.create({ key: options.signingKey, keyId: options.signingKeyId, algorithm: options.signingAlgorithm });
    this.delivery = webhookDelivery(options.delivery);
    this.guard = new UrlGuard({
      allowlist: options.allowlist,
      resolve: options.resolve ?? this.delivery.resolve,
      unresolvedHostNames: options.unresolvedHostNames,
    });
    this.timeoutMs = count(options.timeoutMs ?? 5_000, 'timeoutMs', 1);
    this.retries = count(options.retries ?? 3, 'retries', 0);
    this.retryBackoffMs = count(options.retryBackoffMs ?? 250, 'retryBackoffMs', 0);
    this.maxQueuedPerTask = count(options.maxQueuedPerTask ?? 100, 'maxQueuedPerTask', 1);
    this.maxVerifiedUrls = count(options.maxVerifiedUrls ?? 10_000, 'maxVerifiedUrls', 1);
    this.forwardedBaggage = baggageKeys(options.forwardBaggage);
  }

  /**
   * Checks a config a client sends (`set`, or `pushNotification` on a send): the URL guard,
   * then, when configured, the ownership check. Throws -32602 saying why.
   */
  async accept(config: PushNotificationConfig): Promise<void> {
    const addresses = await this.guard.check(config.url);
    if (!this.options.verifyOwnership) return;
    if (this.verified.delete(config.url)) {
      this.verified.set(config.url, true); // used again: now the most recent
      return;
    }
    await this.verifyOwnership(config.url, addresses);
    this.verified.set(config.url, true);
    if (this.verified.size > this.maxVerifiedUrls) this.verified.delete(this.verified.keys().next().value!);
  }

  /**
   * Called after every committed change of a task: queues, for each of its push configs, one
   * notification per status event, in the body of the version that config was set over.
   */
  notify({ record, events }: TaskUpdateResult): void {
    const configs = record.pushConfigs;
    if (!configs || configs.length === 0) return;
    for (const { id, event } of events) {
      if (!isStatusUpdateEvent(event)) continue;
      // One body per version for all the webhooks set over it.
      const bodies = new Map<string, object>();
      for (const config of configs) {
        const format = this.formatFor(config, record.task.id);
        if (!format) continue;
        let body = bodies.get(config.protocol);
        if (!body) {
          body = format.body(record, event, id);
          bodies.set(config.protocol, body);
        }
        this.enqueue(record.task.id, id, config, body, format);
      }
    }
  }

  /** A config set over a version this process does not serve (a newer replica's) is not notified here. */
  private formatFor(config: StoredPushConfig, taskId: string): PushFormat | undefined {
    const version = config.protocol;
    const format = Object.hasOwn(this.bodies, version) ? this.bodies[version] : undefined;
    if (!format) this.logger.error({ taskId, protocol: version }, 'push notification skipped: no body for its protocol version');
    return format;
  }

  /** Settles once every notification queued now is delivered (or given up), or when `deadline` settles first. */
  async flushed(deadline: Promise<void>): Promise<void> {
    await Promise.race([Promise.all([...this.queues.values()].map((queue) => queue.tail)), deadline]);
  }

  /** Stops retrying and aborts deliveries under way. */
  close(): void {
    this.stopping.abort();
  }

  private enqueue(taskId: string, eventId: number, config: StoredPushConfig, body: object, format: PushFormat): void {
    // One chain per webhook of a task keeps its notifications in order; a slow webhook holds up
    // no other (of this task or another).
    const key = `${taskId}\0${config.id}`;
    const queue = this.queues.get(key) ?? { tail: Promise.resolve(), pending: 0 };
    if (queue.pending >= this.maxQueuedPerTask) {
      this.logger.warn({ taskId, pushConfigId: config.id, eventId }, 'push notification dropped: too many waiting for this webhook');
      this.metrics?.pushEnded('dropped', 0);
      return;
    }
    queue.pending++;
    this.queues.set(key, queue);
    // The change being notified is the work of a call (or its turn): the delivery, done later, is its child.
    const about = { taskId, pushConfigId: config.id, eventId, queuedAt: performance.now(), parent: currentContext() };
    queue.tail = queue.tail
      .then(() => this.deliver(config, body, format, about))
      .catch((error: unknown) => this.logger.error({ err: error, taskId }, 'push notification failed unexpectedly'))
      .finally(() => {
        queue.pending--;
        if (queue.pending === 0 && this.queues.get(key) === queue) this.queues.delete(key);
      });
  }

  private async deliver(
    config: PushNotificationConfig,
    payload: object,
    format: PushFormat,
    { queuedAt, parent, ...about }: { taskId: string; pushConfigId: string; eventId: number; queuedAt: number; parent: Context },
  ): Promise<void> {
    const span = startChildSpan('a2a push', pushSpanAttributes(config.url, about.taskId), SpanKind.CLIENT, parent);
    let attempts = 0;
    const ended = (outcome: PushOutcome, status?: number) => {
      this.metrics?.pushEnded(outcome, (performance.now() - queuedAt) / 1000);
      if (!span.isRecording()) return;
      span.setAttribute(A2A_ATTRIBUTES.outcome, outcome);
      span.setAttribute(A2A_ATTRIBUTES.pushAttempts, attempts);
      if (status !== undefined) span.setAttribute('http.response.status_code', status);
      if (outcome !== 'delivered') failSpan(span, `push notification ${outcome}`);
      span.end();
    };
    const body = new TextEncoder().encode(JSON.stringify(payload));
    const log = this.logger.child({ ...about, url: redactUrl(config.url) });
    for (let attempt = 1; !this.stopping.signal.aborted; attempt++) {
      attempts = attempt;
      let failure: string;
      try {
        // Checked again at each delivery: a host name may resolve elsewhere than at `set` time.
        const addresses = await this.guard.check(config.url);
        const signature = await this.signer.sign(body);
        const headers: Record<string, string> = { 'Content-Type': format.contentType ?? 'application/json' };
        const credentials = format.credentialsInAuthorization ? authorizationOf(config) : undefined;
        if (credentials === undefined) headers.Authorization = `Bearer ${signature}`;
        else {
          headers.Authorization = credentials;
          headers['A2A-Notification-Signature'] = signature;
        }
        if (config.token != null) headers['X-A2A-Notification-Token'] = config.token;
        // The receiver joins the trace (W3C traceparent), when there is one; the webhook is the
        // client's choice, so the caller's tracestate and baggage stay here.
        injectBoundaryTraceContext(trace.setSpan(parent, span), headers, this.forwardedBaggage);
        const { status } = await this.request('POST', config.url, addresses, headers, body);
        if (status >= 200 && status < 300) {
          log.info({ status, attempt, outcome: 'delivered' }, 'push notification');
          return ended('delivered', status);
        }
        if (status < 500) {
          log.warn({ status, attempt, outcome: 'rejected' }, 'push notification');
          return ended('rejected', status);
        }
        failure = `HTTP ${status}`;
      } catch (error) {
        if (error instanceof A2AError) {
          log.warn({ outcome: 'refused', reason: JSON.stringify(error.data) }, 'push notification');
          return ended('refused');
        }
        failure = (error as Error).message;
      }
      if (attempt > this.retries) {
        log.warn({ attempt, outcome: 'failed', reason: failure }, 'push notification');
        return ended('failed');
      }
      log.info({ attempt, outcome: 'retrying', reason: failure }, 'push notification');
      this.metrics?.pushRetried();
      await sleep(this.retryBackoffMs * 2 ** (attempt - 1), this.stopping.signal);
    }
    // Stopped (the router closed) before an outcome.
    ended('failed');
  }

  private async verifyOwnership(url: string, addresses: ResolvedAddress[]): Promise<void> {
    const token = crypto.randomUUID();
    const target = new URL(url);
    target.searchParams.set('validationToken', token);
    let answer: { status: number; body: string };
    try {
      answer = await this.request('GET', target.toString(), addresses, {});
    } catch (error) {
      throw ownershipRefused(url, `the URL did not answer (${(error as Error).message})`);
    }
    if (answer.status !== 200 || answer.body.trim() !== token) {
      throw ownershipRefused(url, `GET ?validationToken=… must answer 200 with the token; got HTTP ${answer.status}`);
    }
  }

  /** One HTTP request, connecting only to the checked addresses (where the delivery can), bounded by `timeoutMs`. */
  private async request(
    method: 'GET' | 'POST',
    url: string,
    addresses: ResolvedAddress[],
    headers: Record<string, string>,
    body?: Uint8Array,
  ): Promise<WebhookAnswer> {
    const signal = AbortSignal.any([AbortSignal.timeout(this.timeoutMs), this.stopping.signal]);
    try {
      return await this.delivery.send({ method, url, headers, addresses, signal, ...(body && { body }) });
    } catch (error) {
      throw signal.aborted ? new Error(`no answer within ${this.timeoutMs} ms`) : error;
    }
  }
}

/**
 * The delivery asked for: Node's where the runtime has Node's http, https and dns (Node, Bun,
 * Deno), else fetch. `'node'` where the runtime has none of them is a TypeError.
 */
export function webhookDelivery(choice: 'node' | 'fetch' | undefined): WebhookDelivery {
  if (choice !== undefined && choice !== 'node' && choice !== 'fetch')
    throw new TypeError(`a2aRouter: options.pushNotifications.delivery must be 'node' or 'fetch', got ${JSON.stringify(choice)}`);
  if (choice === 'fetch') return fetchDelivery;
  const node = nodeDelivery();
  if (node) return node;
  if (choice === 'node')
    throw new TypeError("a2aRouter: options.pushNotifications.delivery is 'node', but this runtime has no Node http, https and dns");
  return fetchDelivery;
}

/** Waits `ms`, or less when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

function ownershipRefused(url: string, reason: string): A2AError {
  return A2AError.invalidParams([
    {
      path: '/pushNotificationConfig/url',
      message: `webhook ownership not confirmed: ${reason}`,
      keyword: 'webhookOwnership',
      params: { url: redactUrl(url) },
    },
  ]);
}

/**
 * Where a delivery goes, for its span: the host and port only. Webhook URLs often carry their
 * secret in the path or the query, and spans go to a tracing backend.
 */
function pushSpanAttributes(url: string, taskId: string): Attributes {
  try {
    const parsed = new URL(url);
    return {
      [A2A_ATTRIBUTES.taskId]: taskId,
      'http.request.method': 'POST',
      'server.address': parsed.hostname,
      'server.port': Number(parsed.port) || (parsed.protocol === 'https:' ? 443 : 80),
    };
  } catch {
    return { [A2A_ATTRIBUTES.taskId]: taskId };
  }
}

/** A URL fit for logs: no query string (it may carry secrets). */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '[invalid url]';
  }
}

function count(value: number, name: string, min: number): number {
  if (!Number.isInteger(value) || value < min) {
    throw new TypeError(`a2aRouter: options.pushNotifications.${name} must be an integer ≥ ${min}, got ${String(value)}`);
  }
  return value;
}

/** `Authorization` from a config's own credentials (its first scheme), when it has any. */
function authorizationOf(config: PushNotificationConfig): string | undefined {
  const scheme = config.authentication?.schemes[0];
  const credentials = config.authentication?.credentials;
  return scheme !== undefined && credentials != null && credentials !== '' ? `${scheme} ${credentials}` : undefined;
}

function baggageKeys(keys: readonly string[] | undefined): ReadonlySet<string> {
  if (keys === undefined) return new Set();
  if (!Array.isArray(keys) || keys.some((key) => typeof key !== 'string' || key === '')) {
    throw new TypeError('a2aRouter: options.pushNotifications.forwardBaggage must be a list of baggage keys');
  }
  return new Set(keys);
}
