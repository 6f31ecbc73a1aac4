// HTTPS with a CA of your own and a client certificate (mutual TLS), for the JSON-RPC and
// HTTP+JSON bindings: a fetch for the clients' `fetch` option. The platform's fetch has no such
// option, and in a browser the user's certificate store answers the server's request for one, so
// this is the `a2a-client/tls` subpath, for Node only, off the main entry.
//
// Built on undici (the fetch Node itself ships) with its own fetch and Agent: Node's global fetch
// takes an undici dispatcher only from the undici major it bundles (6 in Node 20, 7 in Node 24), so
// pairing the two from one package is what works on every Node the client supports.
import { Agent, fetch as undiciFetch } from 'undici';
import type { Pem } from './grpc.js';

/** TLS for HTTPS calls: the same fields as gRPC's (`grpcTransport({ tls })`). */
export interface TlsOptions {
  /** The CA certificates the server's must chain to, instead of the system's roots. */
  ca?: Pem;
  /** The client's certificate chain, for mutual TLS (with `key`). */
  cert?: Pem;
  /** The client certificate's private key. */
  key?: Pem;
  /** The name the server's certificate must carry when it is not the host dialled. */
  serverName?: string;
}

/** A fetch over TLS as its options say, for a client's `fetch` option. */
export interface TlsFetch {
  (input: string | URL | Request, init?: RequestInit): Promise<Response>;
  /**
   * Whether it presents a client certificate: a client given this fetch then meets a card's
   * `mutualTLS` scheme over JSON-RPC and HTTP+JSON. A fetch of your own that presents one says so
   * with the same property (`Object.assign(myFetch, { clientCertificate: true })`).
   */
  readonly clientCertificate: boolean;
  /** Closes its connections. */
  close(): Promise<void>;
}

/**
 * A fetch whose HTTPS connections trust `ca` (else the system's roots) and present `cert` and
 * `key` when the server asks for a client certificate:
 * `new A2AClient10(url, { fetch: tlsFetch({ ca, cert, key }) })`.
 */
export function tlsFetch(options: TlsOptions): TlsFetch {
  if ((options.cert === undefined) !== (options.key === undefined))
    throw new TypeError('tlsFetch: a client certificate needs its key, and a key its certificate (cert and key)');
  const bytes = (pem: Pem | undefined) => (pem === undefined ? undefined : Buffer.from(pem));
  // tls.connect reads an undefined `ca` as "the system's roots".
  const agent = new Agent({
    connect: { ca: bytes(options.ca), cert: bytes(options.cert), key: bytes(options.key), servername: options.serverName },
  });
  const fetchOverTls = (input: string | URL | Request, init?: RequestInit) =>
    undiciFetch(input as never, { ...(init as object), dispatcher: agent }) as unknown as Promise<Response>;
  return Object.assign(fetchOverTls, { clientCertificate: options.cert !== undefined, close: () => agent.close() });
}
