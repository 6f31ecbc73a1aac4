// The key that signs push notifications, and the JWKS that publishes its public half.
import { calculateJwkThumbprint, generateKeyPair, SignJWT, type JWK } from 'jose';
import { generatedPrivateKey, readPrivateKey, type KeyKind, type PrivateKey } from '../core/keys.js';
import { hex } from '../core/sha256.js';

/** A private key: a JWK (with its `kid`, ideally) or a PKCS#8 / PKCS#1 / SEC1 PEM string. */
export type SigningKeyInput = JWK | string;

export interface SigningKeyOptions {
  /** The private key; default a new RSA key pair, made when first needed (fine for one process). */
  key?: SigningKeyInput;
  /** Key id for the JWT header and the JWKS; default the JWK's `kid`, else its thumbprint. */
  keyId?: string;
  /** JWS algorithm; default from the key: RSA → RS256, P-256 → ES256, P-384 → ES384, Ed25519 → EdDSA. */
  algorithm?: string;
}

export interface PublicJwk extends JWK {
  kid: string;
  alg: string;
  use: 'sig';
}

/** Signs notification bodies; holds one key. */
export class NotificationSigner {
  /** The key and its public JWK, from when they are first asked for. */
  private key: { readonly privateKey: Promise<PrivateKey>; readonly publicJwk: Promise<PublicJwk> } | undefined;

  private constructor(
    private readonly makeKey: () => Promise<PrivateKey>,
    private readonly algorithm: string,
    private readonly keyId: string | undefined,
  ) {}

  /**
   * Synchronous, so that a bad key is an error when the router is made: the key is read (its
   * kind, its PEM) at once. Web Crypto imports it, or makes the default RSA key, when it is first
   * used (the JWKS asked for, or a first notification): a new RSA key took 0.1 to 0.5 s of CPU at
   * every start of an agent, most of whose clients never register a webhook.
   */
  static create(options: SigningKeyOptions = {}): NotificationSigner {
    const given = options.key === undefined ? undefined : importPrivateKey(options.key);
    const algorithm = options.algorithm ?? defaultAlgorithm(given?.kind ?? { type: 'rsa' });
    const makeKey = given
      ? () => Promise.resolve(given)
      : () =>
          generateKeyPair('RS256', { modulusLength: 2048, extractable: true }).then(({ privateKey }) =>
            generatedPrivateKey(privateKey, { type: 'rsa' }),
          );
    const givenKid = typeof options.key === 'object' ? options.key.kid : undefined;
    return new NotificationSigner(makeKey, algorithm, options.keyId ?? givenKid);
  }

  /** The JWKS document served at `/.well-known/jwks.json`. */
  async jwks(): Promise<{ keys: PublicJwk[] }> {
    return { keys: [await this.signingKey().publicJwk] };
  }

  /**
   * A JWT for one notification: header `alg`, `kid`; claims `iat`, a unique `jti`, and
   * `request_body_sha256`, the hex SHA-256 of exactly the body bytes sent (the reference
   * agent's scheme, so its receivers can verify ours).
   */
  async sign(body: Uint8Array): Promise<string> {
    const { privateKey, publicJwk } = this.signingKey();
    const [key, { kid }, digest] = await Promise.all([
      privateKey.then((made) => made.signingKey(this.algorithm)),
      publicJwk,
      crypto.subtle.digest('SHA-256', body),
    ]);
    return new SignJWT({ request_body_sha256: hex(new Uint8Array(digest)) })
      .setProtectedHeader({ alg: this.algorithm, kid, typ: 'JWT' })
      .setIssuedAt()
      .setJti(crypto.randomUUID())
      .sign(key);
  }

  private signingKey(): { readonly privateKey: Promise<PrivateKey>; readonly publicJwk: Promise<PublicJwk> } {
    if (this.key) return this.key;
    const privateKey = this.makeKey();
    const publicJwk = privateKey.then(async (key) => {
      const jwk = await key.publicJwk();
      const kid = this.keyId ?? (await calculateJwkThumbprint(jwk, 'sha256'));
      return { ...jwk, kid, alg: this.algorithm, use: 'sig' as const };
    });
    // Awaited by each notification and by the JWKS, which report a failure; not unhandled meanwhile.
    publicJwk.catch(() => undefined);
    this.key = { privateKey, publicJwk };
    return this.key;
  }
}

function importPrivateKey(input: SigningKeyInput): PrivateKey {
  try {
    return readPrivateKey(input);
  } catch (error) {
    throw new TypeError(`push notifications: the signing key is not a usable private key (${(error as Error).message})`);
  }
}

function defaultAlgorithm(kind: KeyKind): string {
  if (kind.type === 'rsa') return 'RS256';
  if (kind.type === 'ec' && kind.curve === 'P-256') return 'ES256';
  if (kind.type === 'ec' && kind.curve === 'P-384') return 'ES384';
  if (kind.type === 'ed25519') return 'EdDSA';
  const [kty, crv] = kind.type === 'ec' ? ['EC', kind.curve] : kind.type.startsWith('rsa') ? ['RSA', undefined] : ['OKP', kind.type];
  throw new TypeError(`push notifications: no default algorithm for a ${kty} ${crv ?? ''} key; set algorithm`);
}
