// Checking an agent card's signatures (spec 1.0 8.4): each a JWS (RFC 7515) whose payload is the
// card's canonical form (RFC 8785, shaped by the 1.0 proto for a 1.0 card), verified against the
// keys the caller trusts: a JWKS document, its URL, or a function that finds a key.
import { canonicalAgentCard03, canonicalAgentCard10 } from 'a2a-types/card-signing';
import { createLocalJWKSet, decodeProtectedHeader, flattenedVerify, type JWK, type JWTVerifyGetKey } from 'jose';
import { BodyTooLarge, describeError, isRedirect, MAX_KEYS_BYTES, readDocument, redirectReason } from './bounded-body.js';

/** Where the keys come from: a JWKS document, its URL (fetched with a timeout, at most 1 MiB read), or a key lookup. */
export type CardKeys = { keys: JWK[] } | string | URL | JWTVerifyGetKey;

export interface CardSignatureCheck {
  /** Whether the card carries any signature. */
  signed: boolean;
  /** Whether one of them verifies against the keys. */
  valid: boolean;
  /** The `kid` of the signature that verified (or of the first, when none did). */
  kid?: string;
  /** Why it is not valid (unsigned, no key for its kid, the signature does not match). */
  reason?: string;
}

export interface VerifyCardOptions {
  keys: CardKeys;
  /** The card's protocol version; default: 1.0 when it lists `supportedInterfaces`, else 0.3. */
  protocol?: '1.0' | '0.3';
  /** For a JWKS URL: most milliseconds to fetch it. Default 5,000. */
  timeoutMs?: number;
}

/**
 * Checks a card's signatures; valid when at least one verifies. Never throws: a bad signature, a
 * card with no canonical form (nested past what the proto's JSON reads), keys that cannot be read
 * or a key set too large are each a `reason`.
 */
export async function verifyCardSignature(card: unknown, options: VerifyCardOptions): Promise<CardSignatureCheck> {
  try {
    return await verify(card, options);
  } catch (error) {
    return { signed: true, valid: false, reason: `the signature could not be checked: ${(error as Error)?.message ?? String(error)}` };
  }
}

async function verify(card: unknown, options: VerifyCardOptions): Promise<CardSignatureCheck> {
  const signatures = (card as { signatures?: unknown } | null)?.signatures;
  if (!Array.isArray(signatures) || signatures.length === 0) return { signed: false, valid: false, reason: 'the card is not signed' };
  const protocol = options.protocol ?? (Array.isArray((card as { supportedInterfaces?: unknown }).supportedInterfaces) ? '1.0' : '0.3');
  let payload: string;
  try {
    payload = protocol === '1.0' ? canonicalAgentCard10(card) : canonicalAgentCard03(card);
  } catch (error) {
    return {
      signed: true,
      valid: false,
      reason: `the card has no canonical form to check the signature against: ${(error as Error).message}`,
    };
  }
  const encoded = Buffer.from(payload).toString('base64url');
  const getKey = keySetOf(options.keys, options.timeoutMs ?? 5_000);
  let first: CardSignatureCheck | undefined;
  for (const entry of signatures) {
    const {
      protected: protectedHeader,
      signature,
      header,
    } = (entry ?? {}) as { protected?: unknown; signature?: unknown; header?: unknown };
    let kid: string | undefined;
    try {
      if (typeof protectedHeader !== 'string' || typeof signature !== 'string')
        throw new Error('a signature needs `protected` and `signature`');
      kid = decodeProtectedHeader({ protected: protectedHeader }).kid;
      const unprotected = header !== null && typeof header === 'object' ? { header: header as Record<string, unknown> } : {};
      // The key set looks a key up by the protected header's kid and alg, as for a JWT.
      await flattenedVerify({ protected: protectedHeader, signature, payload: encoded, ...unprotected }, getKey as never);
      return { signed: true, valid: true, ...(kid !== undefined && { kid }) };
    } catch (error) {
      first ??= { signed: true, valid: false, ...(kid !== undefined && { kid }), reason: reasonOf(error) };
    }
  }
  return first!;
}

function keySetOf(keys: CardKeys, timeoutMs: number): JWTVerifyGetKey {
  if (typeof keys === 'function') return keys;
  if (typeof keys === 'string' || keys instanceof URL) return remoteKeySet(new URL(keys), timeoutMs);
  return createLocalJWKSet(keys as never);
}

/**
 * The key set at `url`, fetched when a signature first needs a key, once, within the timeout and
 * at most MAX_KEYS_BYTES of it (jose's remote key set reads any size).
 */
function remoteKeySet(url: URL, timeoutMs: number): JWTVerifyGetKey {
  let keySet: Promise<JWTVerifyGetKey> | undefined;
  const load = async () => createLocalJWKSet(await fetchKeySet(url, { timeoutMs }));
  return async (header, token) => (await (keySet ??= load()))(header, token);
}

/**
 * The JWKS at `url`, read as from an agent we do not control: within `timeoutMs`, at most
 * MAX_KEYS_BYTES of it, no redirect followed (jose's remote key set reads any size, and follows
 * them). An Error that names the URL and says why otherwise.
 */
export async function fetchKeySet(
  url: URL,
  { fetcher = fetch, headers = {}, timeoutMs }: { fetcher?: typeof fetch; headers?: Record<string, string>; timeoutMs: number },
): Promise<{ keys: JWK[] }> {
  const unreadable = (error: unknown) =>
    (error as Error).name === 'TimeoutError'
      ? new Error(`the key set at ${url} did not come within ${timeoutMs} ms`)
      : new Error(`the key set at ${url} could not be read: ${describeError(error)}`);
  let response: Response;
  try {
    response = await fetcher(url, {
      headers: { accept: 'application/json', ...headers },
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw unreadable(error);
  }
  if (isRedirect(response.status)) {
    await response.body?.cancel();
    throw new Error(`the key set at ${url} could not be read: ${redirectReason(response)}`);
  }
  let text: string;
  try {
    text = await readDocument(response, MAX_KEYS_BYTES, `the key set at ${url}`);
  } catch (error) {
    throw error instanceof BodyTooLarge ? error : unreadable(error);
  }
  if (response.status !== 200) throw new Error(`the key set at ${url} could not be read: HTTP ${response.status}`);
  let document: { keys?: unknown };
  try {
    document = JSON.parse(text) as { keys?: unknown };
  } catch {
    throw new Error(`the key set at ${url} is not JSON`);
  }
  if (!Array.isArray(document?.keys)) throw new Error(`the key set at ${url} is not a JWKS (no \`keys\` list)`);
  return document as { keys: JWK[] };
}

function reasonOf(error: unknown): string {
  const code = (error as { code?: string }).code;
  if (code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') return 'the signature does not match the card';
  if (code === 'ERR_JWKS_NO_MATCHING_KEY') return 'no key of the key set matches the signature’s kid';
  return (error as Error).message;
}
