// Signed agent cards (spec 1.0 8.4; 0.3's cards carry `signatures` too): each card the router
// serves is signed as it is served, with every key given, each signature a JWS (RFC 7515) over
// the card's canonical form (RFC 8785), its payload detached. Its URLs are the operator's
// (`card.url`), never the request's: a card signed for whatever `Host` a client sends would let
// a proxy obtain a genuine signature on a card that sends clients to it.
// The public keys are served on the router's `/.well-known/jwks.json`, or wherever `jku` says.
import { FlattenedSign, type JWK } from 'jose';
import { readPrivateKey, type KeyKind, type KeyObject, type PrivateKey } from './keys.js';

/**
 * The canonical forms, loaded when a card is first signed. They read a 1.0 card through the
 * proto's message types, and loading those (protobuf-es and the generated A2A file) into every
 * agent, signing or not, cost about 10 per cent more CPU an event in the stream bench, for code
 * it never runs.
 */
let canonicalForms: Promise<typeof import('a2a-types/card-signing')> | undefined;

/** One key cards are signed with. */
export interface CardSigningKey {
  /** A private key: a JWK, a `KeyObject`, or PEM text. */
  privateKey: JWK | KeyObject | string;
  /** Its key id: the JWS header's `kid`, and the public JWK's. */
  kid: string;
  /** Its algorithm. Default: from the key (ES256, ES384, ES512, EdDSA, RS256, PS256 for RSA-PSS). */
  alg?: string;
}

/** The `cardSigning` option: one key, or several (rotation: every key listed signs, each its own signature). */
export type CardSigningOptions = CardSigningKey | { keys: readonly CardSigningKey[]; jku?: string };

/** A card's `signatures` entry (1.0's `AgentCardSignature`, 0.3's the same). */
interface CardSignature {
  protected: string;
  signature: string;
}

/** Most payloads whose signatures are kept: a card differs per request only by its URLs. */
const MAX_CACHED = 64;

export class CardSigner {
  readonly #keys: { key: PrivateKey; kid: string; alg: string; publicJwk: Promise<JWK> }[];
  readonly #jku: string | undefined;
  /** Signatures by payload: the same card keeps the same signatures (and ETag), ECDSA's being random. */
  readonly #cache = new Map<string, Promise<CardSignature[]>>();

  /** @param cardUrl the card's `url` as the author gave it: what every signed card's URLs are built from. */
  constructor(option: CardSigningOptions, cardUrl: string | undefined) {
    if (option === null || typeof option !== 'object')
      throw new TypeError(
        `a2aRouter: cardSigning must be { privateKey, kid } or { keys: [{ privateKey, kid }, ...] }, got ${typeof option}`,
      );
    if (cardUrl === undefined)
      throw new TypeError(
        'a2aRouter: cardSigning needs card.url, the public URL the router is mounted at (https://agent.example.com/): ' +
          'the signed cards name it, rather than whatever Host a client sends',
      );
    const keys = 'keys' in option ? option.keys : [option];
    if (!Array.isArray(keys) || keys.length === 0) throw new TypeError('a2aRouter: cardSigning needs at least one key');
    const seen = new Set<string>();
    this.#keys = keys.map((entry: unknown, i) => {
      const { privateKey, kid, alg } = signingKeyOf(entry, i, 'keys' in option);
      if (typeof kid !== 'string' || kid === '') throw new TypeError(`a2aRouter: cardSigning key ${i} needs a kid`);
      if (seen.has(kid)) throw new TypeError(`a2aRouter: cardSigning: the kid ${kid} is given twice`);
      seen.add(kid);
      const key = privateKeyOf(privateKey, i);
      const chosen = alg ?? algorithmOf(key.kind, i);
      const publicJwk = key.publicJwk().then((jwk) => ({ ...jwk, kid, alg: chosen, use: 'sig' }));
      // Read when the keys are served or a card is signed, which say what went wrong; not left unhandled meanwhile.
      publicJwk.catch(() => undefined);
      return { key, kid, alg: chosen, publicJwk };
    });
    this.#jku = 'keys' in option ? option.jku : undefined;
  }

  /** The public keys, as the JWKS document serves them. */
  publicKeys(): Promise<JWK[]> {
    return Promise.all(this.#keys.map(({ publicJwk }) => publicJwk));
  }

  /** The card with its signatures (any it came with replaced), for the protocol version it is in. */
  async sign<T>(card: T, protocol: string): Promise<T> {
    const { canonicalAgentCard10, canonicalAgentCard03 } = await (canonicalForms ??= import('a2a-types/card-signing'));
    const payload = protocol === '1.0' ? canonicalAgentCard10(card) : canonicalAgentCard03(card);
    const cacheKey = `${protocol}\n${payload}`;
    let signatures = this.#cache.get(cacheKey);
    if (!signatures) {
      signatures = this.signPayload(payload);
      if (this.#cache.size >= MAX_CACHED) this.#cache.delete(this.#cache.keys().next().value!);
      this.#cache.set(cacheKey, signatures);
      signatures.catch(() => this.#cache.delete(cacheKey));
    }
    return { ...card, signatures: await signatures };
  }

  private signPayload(payload: string): Promise<CardSignature[]> {
    const bytes = new TextEncoder().encode(payload);
    return Promise.all(
      this.#keys.map(async ({ key, kid, alg }) => {
        const jws = await new FlattenedSign(bytes)
          .setProtectedHeader({ alg, kid, typ: 'JOSE', ...(this.#jku && { jku: this.#jku }) })
          .sign(await key.signingKey(alg));
        // Detached: the payload is the card itself.
        return { protected: jws.protected!, signature: jws.signature };
      }),
    );
  }
}

/** A key entry as given, or a TypeError that says what was expected (a bare JWK is the usual slip). */
function signingKeyOf(entry: unknown, i: number, listed: boolean): CardSigningKey {
  const where = listed ? `cardSigning.keys[${i}]` : 'cardSigning';
  const expected = listed ? '{ privateKey, kid, alg? }' : '{ privateKey, kid, alg? } or { keys: [...] }';
  if (entry === null || typeof entry !== 'object')
    throw new TypeError(`a2aRouter: ${where} must be ${expected}, got ${entry === null ? 'null' : typeof entry}`);
  if ((entry as { privateKey?: unknown }).privateKey == null) {
    const bareJwk = typeof (entry as { kty?: unknown }).kty === 'string';
    throw new TypeError(
      `a2aRouter: ${where} must be ${expected}` +
        (bareJwk ? `, and is a JWK itself: give { privateKey: theJwk, kid: '...' }` : ': it has no privateKey'),
    );
  }
  return entry as CardSigningKey;
}

function privateKeyOf(value: JWK | KeyObject | string, i: number): PrivateKey {
  try {
    return readPrivateKey(value);
  } catch (error) {
    throw new TypeError(`a2aRouter: cardSigning key ${i} is not a private key: ${(error as Error).message}`);
  }
}

function algorithmOf(kind: KeyKind, i: number): string {
  switch (kind.type) {
    case 'ec': {
      if (kind.curve === 'P-256') return 'ES256';
      if (kind.curve === 'P-384') return 'ES384';
      if (kind.curve === 'P-521') return 'ES512';
      break;
    }
    case 'ed25519':
      return 'EdDSA';
    case 'rsa':
      return 'RS256';
    case 'rsa-pss':
      return 'PS256';
  }
  throw new TypeError(`a2aRouter: cardSigning key ${i}: give its alg (a ${kind.type} key)`);
}
