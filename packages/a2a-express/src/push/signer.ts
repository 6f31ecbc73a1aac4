// The key that signs push notifications, and the JWKS that publishes its public half.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { SignJWT, type JWK } from 'jose';

/** A private key: a JWK (with its `kid`, ideally) or a PKCS#8 / PKCS#1 / SEC1 PEM string. */
export type SigningKeyInput = JWK | string;

export interface SigningKeyOptions {
  /** The private key; default a new RSA key pair made at start-up (fine for one process). */
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
  private constructor(
    private readonly privateKey: KeyObject,
    readonly publicJwk: PublicJwk,
  ) {}

  /**
   * Synchronous on purpose, so that a bad key is an error when the router is made. A new RSA
   * key takes some tens of milliseconds, once.
   */
  static create(options: SigningKeyOptions = {}): NotificationSigner {
    const privateKey =
      options.key === undefined ? generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey : importPrivateKey(options.key);
    const exported = createPublicKey(privateKey).export({ format: 'jwk' }) as JWK;
    const algorithm = options.algorithm ?? defaultAlgorithm(exported);
    const keyId = options.keyId ?? (typeof options.key === 'object' ? options.key.kid : undefined) ?? thumbprint(exported);
    return new NotificationSigner(privateKey, { ...exported, kid: keyId, alg: algorithm, use: 'sig' });
  }

  /** The JWKS document served at `/.well-known/jwks.json`. */
  get jwks(): { keys: PublicJwk[] } {
    return { keys: [this.publicJwk] };
  }

  /**
   * A JWT for one notification: header `alg`, `kid`; claims `iat`, a unique `jti`, and
   * `request_body_sha256`, the hex SHA-256 of exactly the body bytes sent (the reference
   * agent's scheme, so its receivers can verify ours).
   */
  async sign(body: Buffer): Promise<string> {
    return new SignJWT({ request_body_sha256: createHash('sha256').update(body).digest('hex') })
      .setProtectedHeader({ alg: this.publicJwk.alg, kid: this.publicJwk.kid, typ: 'JWT' })
      .setIssuedAt()
      .setJti(randomUUID())
      .sign(this.privateKey);
  }
}

/** RFC 7638 JWK thumbprint (SHA-256, base64url) of a public key. */
function thumbprint(jwk: JWK): string {
  const members: Record<string, string[]> = { RSA: ['e', 'kty', 'n'], EC: ['crv', 'kty', 'x', 'y'], OKP: ['crv', 'kty', 'x'] };
  const required = members[jwk.kty ?? ''] ?? [];
  const canonical = JSON.stringify(Object.fromEntries(required.map((name) => [name, (jwk as Record<string, unknown>)[name]])));
  return createHash('sha256').update(canonical).digest('base64url');
}

function importPrivateKey(input: SigningKeyInput): KeyObject {
  try {
    const key = typeof input === 'string' ? createPrivateKey(input) : createPrivateKey({ key: input as never, format: 'jwk' });
    return key;
  } catch (error) {
    throw new TypeError(`push notifications: the signing key is not a usable private key (${(error as Error).message})`);
  }
}

function defaultAlgorithm(jwk: JWK): string {
  if (jwk.kty === 'RSA') return 'RS256';
  if (jwk.kty === 'EC' && jwk.crv === 'P-256') return 'ES256';
  if (jwk.kty === 'EC' && jwk.crv === 'P-384') return 'ES384';
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') return 'EdDSA';
  throw new TypeError(`push notifications: no default algorithm for a ${jwk.kty} ${jwk.crv ?? ''} key; set algorithm`);
}
