// Cross-origin calls (CORS), for a page on another origin: a browser client, a hosted inspector, a
// registry that shows cards. Off unless the agent names the origins it allows; then its cards,
// its JSON-RPC endpoints and its HTTP+JSON binding answer those origins' preflights and say so on
// every answer, with the headers a client reads exposed. Any other origin gets no CORS header,
// so the browser keeps the answer from its page. Never `*` with credentials: a page's cookies and
// HTTP authentication go only to an origin named.
import type { EdgeRequest, EdgeResponse } from './exchange.js';
import { headerOf } from './exchange.js';

/** Option `cors` of the router and the handlers. */
export interface CorsOptions {
  /**
   * The origins whose pages may call the agent (`https://app.example.com`, exactly as a browser
   * sends `Origin`), `'*'` for any page, or a function that says whether to allow one.
   */
  origins: readonly string[] | '*' | ((origin: string) => boolean);
  /**
   * Let pages send credentials the browser holds (cookies, HTTP authentication): answered with
   * `Access-Control-Allow-Credentials: true`. Not with `origins: '*'`. Default false: a page
   * still sends its own `Authorization` header or API key, which needs no browser credentials.
   */
  credentials?: boolean;
  /** How long a browser may keep a preflight's answer, seconds. Default 600. */
  maxAgeSeconds?: number;
}

/** The headers an A2A client reads from an answer, which a browser shows a page only when exposed. */
const EXPOSED_HEADERS = [
  'A2A-Version',
  'A2A-Extensions',
  'X-A2A-Extensions',
  'ETag',
  'Last-Modified',
  'Preference-Applied',
  'Retry-After',
  'WWW-Authenticate',
].join(', ');

/** The verbs the agent's paths take. */
const ALLOWED_METHODS = 'GET, POST, DELETE';

/** What the edge asks of the CORS policy. */
export interface CorsPolicy {
  /** Whether answers differ by `Origin` (they do unless every origin is allowed): `Vary` says so. */
  readonly varies: boolean;
  /** Says, on an answer to a page of an allowed origin, that the page may read it. */
  annotate(req: EdgeRequest, res: EdgeResponse): void;
  /** Answers a preflight (`OPTIONS` with `Access-Control-Request-Method`); false for any other `OPTIONS`. */
  preflight(req: EdgeRequest, res: EdgeResponse): boolean;
}

/** The policy of the option, checked; undefined when CORS is off. */
export function corsPolicyOf(options: CorsOptions | undefined, who = 'a2aRouter'): CorsPolicy | undefined {
  if (options === undefined) return undefined;
  const { origins, credentials = false, maxAgeSeconds = 600 } = options;
  const anyOrigin = origins === '*';
  if (!anyOrigin && typeof origins !== 'function' && !(Array.isArray(origins) && origins.every((origin) => typeof origin === 'string'))) {
    throw new TypeError(`${who}: options.cors.origins must be a list of origins, '*' or a function`);
  }
  if (anyOrigin && credentials) {
    throw new TypeError(`${who}: options.cors cannot allow credentials from any origin ('*'): name the origins`);
  }
  if (!Number.isInteger(maxAgeSeconds) || maxAgeSeconds < 0) {
    throw new TypeError(`${who}: options.cors.maxAgeSeconds must be a whole number of seconds`);
  }
  const listed = Array.isArray(origins) ? new Set(origins.map((origin) => origin.replace(/\/$/, ''))) : undefined;
  const allowed = (origin: string): boolean =>
    anyOrigin || (listed ? listed.has(origin) : (origins as (origin: string) => boolean)(origin) === true);

  /** The origin of a request a page of an allowed origin made; undefined for any other. */
  const allowedOrigin = (req: EdgeRequest): string | undefined => {
    const origin = headerOf(req, 'origin');
    return origin !== undefined && allowed(origin) ? origin : undefined;
  };
  const allowOrigin = (res: EdgeResponse, origin: string) => {
    res.setHeader('Access-Control-Allow-Origin', anyOrigin ? '*' : origin);
    if (credentials) res.setHeader('Access-Control-Allow-Credentials', 'true');
  };

  return {
    varies: !anyOrigin,
    annotate(req, res) {
      // Answers differ by origin (one gets the header, another not): caches must keep them apart.
      if (!anyOrigin) res.setHeader('Vary', 'Origin');
      const origin = allowedOrigin(req);
      if (origin === undefined) return;
      allowOrigin(res, origin);
      res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    },
    preflight(req, res) {
      if (headerOf(req, 'access-control-request-method') === undefined) return false;
      const origin = allowedOrigin(req);
      if (!anyOrigin) res.setHeader('Vary', 'Origin, Access-Control-Request-Headers');
      if (origin === undefined) {
        res.setHeader('Content-Type', 'application/json');
        res.end(403, JSON.stringify({ error: 'this origin may not call the agent' }));
        return true;
      }
      allowOrigin(res, origin);
      res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
      // Whatever headers the page sends (A2A-Version, A2A-Extensions, Authorization, an API
      // key's header, Last-Event-ID, Prefer): the origin is trusted to call the agent at all.
      const requested = headerOf(req, 'access-control-request-headers');
      if (requested) res.setHeader('Access-Control-Allow-Headers', requested);
      res.setHeader('Access-Control-Max-Age', String(maxAgeSeconds));
      res.end(204);
      return true;
    },
  };
}
