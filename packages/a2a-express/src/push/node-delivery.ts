// Delivery with Node's http and https (on Node, and on Bun and Deno, which have them), each
// connection made only to an address the URL guard checked: the host name is not resolved again
// between the check and the connection, so a DNS answer that changes meanwhile (DNS rebinding)
// cannot lead it to an address the guard refused.
//
// The modules are asked of the runtime when first needed (`process.getBuiltinModule`), not
// imported: this file is on the path of the fetch handler, which loads where there is no
// node:http (Cloudflare Workers), and a bundler for such a runtime must find no import of it. The
// lint's `no-node-on-the-fetch-path` counts imports; this is the one place builtins are asked for.
import type { WebhookAnswer, WebhookDelivery, WebhookRequest } from './delivery.js';
import type { ResolvedAddress, Resolver } from './url-guard.js';
import { MAX_ANSWER_BYTES } from './delivery.js';

/** What this file uses of node:http and node:https (both have the same `request`). */
interface NodeHttp {
  request(
    url: URL,
    options: {
      method: string;
      headers: Record<string, string>;
      lookup: PinnedLookup;
      signal: AbortSignal;
    },
    onResponse: (response: NodeResponse) => void,
  ): { on(event: 'error', listener: (error: Error) => void): unknown; end(body?: Uint8Array): unknown };
}

interface NodeResponse {
  readonly statusCode?: number;
  on(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** What this file uses of node:dns. */
interface NodeDns {
  lookup(
    hostname: string,
    options: { all: true; verbatim: true },
    callback: (error: Error | null, addresses: ResolvedAddress[]) => void,
  ): void;
}

/** node:net's `LookupFunction`, as http.request calls it. */
type PinnedLookup = (
  hostname: string,
  options: { family?: number | string; all?: boolean } | number,
  callback: (error: Error | null, address: string | ResolvedAddress[], family?: number) => void,
) => void;

interface Builtins {
  readonly http: NodeHttp;
  readonly https: NodeHttp;
  readonly dns: NodeDns;
}

/**
 * Node's delivery, where the runtime has node:http, node:https and node:dns; undefined elsewhere
 * (Cloudflare Workers, whose `nodejs_compat` http goes out through fetch all the same).
 */
export function nodeDelivery(): WebhookDelivery | undefined {
  const builtins = nodeBuiltins();
  if (!builtins) return undefined;
  const resolve: Resolver = (hostname) =>
    new Promise((resolve, reject) =>
      builtins.dns.lookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
    );
  return { name: 'node', resolve, send: (request) => send(builtins, request) };
}

function nodeBuiltins(): Builtins | undefined {
  const host = globalThis as { process?: { getBuiltinModule?: (id: string) => unknown }; navigator?: { userAgent?: string } };
  if (host.navigator?.userAgent === 'Cloudflare-Workers') return undefined;
  const getBuiltinModule = host.process?.getBuiltinModule?.bind(host.process);
  if (typeof getBuiltinModule !== 'function') return undefined;
  try {
    const http = getBuiltinModule('node:http') as NodeHttp | undefined;
    const https = getBuiltinModule('node:https') as NodeHttp | undefined;
    const dns = getBuiltinModule('node:dns') as NodeDns | undefined;
    if (typeof http?.request !== 'function' || typeof https?.request !== 'function' || typeof dns?.lookup !== 'function') return undefined;
    return { http, https, dns };
  } catch {
    return undefined;
  }
}

function send(builtins: Builtins, { method, url, headers, body, addresses, signal }: WebhookRequest): Promise<WebhookAnswer> {
  const target = new URL(url);
  const client = target.protocol === 'https:' ? builtins.https : builtins.http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      target,
      {
        method,
        headers: { 'User-Agent': 'a2a-express', ...headers, ...(body ? { 'Content-Length': String(body.length) } : {}) },
        lookup: pinnedLookup(addresses),
        signal,
      },
      (res) => {
        const chunks: Uint8Array[] = [];
        let size = 0;
        res.on('data', (chunk) => {
          // Only a validation token is ever read; cap what is kept of any answer.
          if ((size += chunk.length) <= MAX_ANSWER_BYTES) chunks.push(chunk);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: decode(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * A `lookup` for http.request that connects only to addresses that passed the check, so that
 * a DNS answer changing between the check and the connection (DNS rebinding) cannot reach an
 * address the check refused.
 */
export function pinnedLookup(addresses: readonly ResolvedAddress[]): PinnedLookup {
  return (_hostname, options, callback) => {
    const wanted = typeof options === 'object' && options.family ? Number(String(options.family).replace('IPv', '')) : 0;
    const usable = addresses.filter((a) => wanted === 0 || a.family === wanted);
    if (usable.length === 0) return callback(new Error('no checked address for this family'), '', 0);
    if (typeof options === 'object' && options.all) return callback(null, usable);
    return callback(null, usable[0]!.address, usable[0]!.family);
  };
}

function decode(chunks: Uint8Array[]): string {
  const decoder = new TextDecoder();
  return chunks.map((chunk) => decoder.decode(chunk, { stream: true })).join('') + decoder.decode();
}
