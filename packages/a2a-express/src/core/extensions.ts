// Extensions (spec 1.0 4.6): the ones an agent declares in its cards, the ones a client asks for
// with a call (1.0's `A2A-Extensions` service parameter: a header over HTTP, metadata over gRPC;
// 0.3's `X-A2A-Extensions` header), and the ones the agent says it used, which the response
// names back in the same header. An agent that requires an extension refuses a call that does
// not ask for it.

/** A call's headers (HTTP) or metadata (gRPC), names in lower case: `CallHeaders` of call.ts. */
type CallHeaderValues = Readonly<Record<string, string | readonly string[] | undefined>>;

/** An extension the agent declares: `capabilities.extensions` of its 0.3 and 1.0 cards. */
export interface AgentExtensionOption {
  /** The extension's URI, as clients name it in `A2A-Extensions`. */
  uri: string;
  /** What it does, for the card's readers. */
  description?: string;
  /** Whether a client must ask for it: a 0.3 or 1.0 call that does not is refused (1.0: -32008). */
  required?: boolean;
  /** The extension's own settings, as it defines them. */
  params?: Record<string, unknown>;
}

/** The header that names a call's extensions, and its response's: by the protocol version. */
export function extensionsHeaderOf(protocol: string): string | undefined {
  if (protocol === '1.0') return 'A2A-Extensions';
  if (protocol === '0.3') return 'X-A2A-Extensions';
  return undefined;
}

const NONE: readonly string[] = Object.freeze([]);

/** Most extensions one call may name; more are ignored (a header is bounded, and so is this). */
const MAX_REQUESTED = 64;

/**
 * The extensions a call asks for: its header's comma-separated URIs (several headers or metadata
 * entries joined), each trimmed, each once, in the order given. 0.3 calls may use 1.0's header too.
 */
export function requestedExtensions(headers: CallHeaderValues, protocol: string): readonly string[] {
  // A version without extensions (0.1.0) asks for none, whatever headers come with it.
  if (extensionsHeaderOf(protocol) === undefined) return NONE;
  const named = headers['a2a-extensions'];
  const named03 = protocol === '0.3' ? headers['x-a2a-extensions'] : undefined;
  // Most calls name none: nothing is made for them.
  if (named === undefined && named03 === undefined) return NONE;
  const requested: string[] = [];
  for (const value of [named, named03]) {
    if (value === undefined) continue;
    for (const line of typeof value === 'string' ? [value] : value) {
      for (const entry of line.split(',')) {
        const uri = entry.trim();
        if (uri !== '' && !requested.includes(uri) && requested.length < MAX_REQUESTED) requested.push(uri);
      }
    }
  }
  return requested;
}

/** Where a binding names the extensions the agent used in its response (a header, gRPC metadata). */
export interface ExtensionsEcho {
  /** Told all the activated extensions each time one is added. */
  echoExtensions(activated: readonly string[]): void;
}

/**
 * A call's extensions: those its client asked for, and those the agent activated (only one the
 * client asked for can be), told to `echo` for the response.
 */
export class CallExtensions {
  readonly #activated: string[] = [];

  constructor(
    readonly requested: readonly string[],
    private readonly echo?: ExtensionsEcho,
  ) {}

  get activated(): readonly string[] {
    return this.#activated;
  }

  /** Marks `uri` as used for this call; false (and nothing echoed) when the client did not ask for it. */
  activate(uri: string): boolean {
    if (!this.requested.includes(uri)) return false;
    if (!this.#activated.includes(uri)) {
      this.#activated.push(uri);
      this.echo?.echoExtensions(this.#activated);
    }
    return true;
  }
}

/** The extensions of a call that asked for none. */
export const NO_EXTENSIONS = new CallExtensions([]);

/** The declared extensions, checked when the router is made: each with a URI, none twice. */
export function checkedExtensions(option: unknown): readonly AgentExtensionOption[] {
  if (option === undefined) return [];
  if (!Array.isArray(option)) throw new TypeError('a2aRouter: extensions must be an array of { uri, description?, required?, params? }');
  const seen = new Set<string>();
  return option.map((entry: unknown, i) => {
    const { uri, description, required, params } = (entry ?? {}) as Record<string, unknown>;
    if (typeof uri !== 'string' || uri.trim() === '' || /[\s,]/.test(uri))
      throw new TypeError(`a2aRouter: extensions[${i}].uri must be a URI (no spaces or commas: clients list them comma-separated)`);
    if (seen.has(uri)) throw new TypeError(`a2aRouter: extensions[${i}]: ${uri} is declared twice`);
    seen.add(uri);
    if (description !== undefined && typeof description !== 'string')
      throw new TypeError(`a2aRouter: extensions[${i}].description must be a string`);
    if (required !== undefined && typeof required !== 'boolean')
      throw new TypeError(`a2aRouter: extensions[${i}].required must be a boolean`);
    if (params !== undefined && (params === null || typeof params !== 'object' || Array.isArray(params)))
      throw new TypeError(`a2aRouter: extensions[${i}].params must be an object`);
    return {
      uri,
      ...(description !== undefined && { description }),
      ...(required !== undefined && { required }),
      ...(params !== undefined && { params: params as Record<string, unknown> }),
    };
  });
}
