// Keys given as options (the card-signing keys, the push-signing key, a bearer token's public key)
// read without node:crypto: with jose and Web Crypto, which every runtime the kit serves from has.
// Web Crypto imports a key asynchronously and for one algorithm, and reads only PKCS#8 and SPKI;
// the kit has always taken PKCS#1 and SEC1 PEM text too, and said at once, when the router is
// made, that a key is unusable. So the PEM text is read here, synchronously: its kind (RSA, EC and
// its curve, Ed25519), which picks the default algorithm, and PKCS#1 and SEC1 wrapped as PKCS#8
// (RSA public keys as SPKI), which Web Crypto then imports when the key is first used.
import { exportJWK, importJWK, importPKCS8, importSPKI, importX509, type CryptoKey, type JWK, type KeyObject } from 'jose';

export type { KeyObject } from 'jose';

/** What a private key is, in node:crypto's words (`asymmetricKeyType`), with an EC key's curve as JOSE names it. */
export interface KeyKind {
  readonly type: 'rsa' | 'rsa-pss' | 'ec' | 'ed25519' | 'ed448' | string;
  /** An EC key's curve: `P-256`, `P-384`, `P-521`. */
  readonly curve?: string;
}

/** A Node.js KeyObject as far as the kit reads one (jose signs with it as it is). */
interface KeyObjectLike extends KeyObject {
  readonly type: string;
  readonly asymmetricKeyType?: string;
  readonly asymmetricKeyDetails?: { namedCurve?: string };
  export(options: { format: 'jwk' }): JWK;
}

/** A private key as the options give it, read: its kind, and how jose gets it for an algorithm. */
export interface PrivateKey {
  readonly kind: KeyKind;
  /** The key to sign with `alg`, as jose takes it (imported once per algorithm). */
  signingKey(alg: string): Promise<CryptoKey | KeyObject | JWK>;
  /** Its public half as a JWK (public members only: no `kid`, `alg` or `use`). */
  publicJwk(): Promise<JWK>;
}

/**
 * Reads a private key: a JWK, a Node.js `KeyObject`, or PEM text (PKCS#8, PKCS#1 `RSA PRIVATE
 * KEY`, SEC1 `EC PRIVATE KEY`). Throws a TypeError saying why one is not a private key.
 */
export function readPrivateKey(input: unknown): PrivateKey {
  if (typeof input === 'string') return privatePem(input);
  if (isKeyObject(input)) {
    if (input.type !== 'private') throw new TypeError(`a ${input.type} KeyObject, not a private one`);
    const curve = input.asymmetricKeyDetails?.namedCurve;
    const kind = { type: input.asymmetricKeyType ?? 'unknown', ...(curve && { curve: CURVE_OF_OPENSSL_NAME[curve] ?? curve }) };
    return { kind, signingKey: async () => input, publicJwk: async () => publicMembers(input.export({ format: 'jwk' })) };
  }
  if (input !== null && typeof input === 'object' && typeof (input as JWK).kty === 'string') {
    const jwk = input as JWK;
    if (jwk.d === undefined) throw new TypeError(`a JWK without "d" is a public key`);
    const kind = kindOfJwk(jwk);
    // jose imports a JWK itself, once per algorithm.
    return { kind, signingKey: async () => jwk, publicJwk: async () => publicMembers(jwk) };
  }
  throw new TypeError('neither a JWK, a KeyObject nor PEM text');
}

/** A private key that Web Crypto made (`generateKeyPair`, extractable). */
export function generatedPrivateKey(key: CryptoKey, kind: KeyKind): PrivateKey {
  return { kind, signingKey: async () => key, publicJwk: async () => publicMembers(await exportJWK(key)) };
}

/**
 * A public key to verify with: a JWK (a private one gives its public half), or PEM text (SPKI
 * `PUBLIC KEY`, PKCS#1 `RSA PUBLIC KEY`, an X.509 `CERTIFICATE`, or a private key's PEM). The
 * function imports it for each algorithm a token names, once. Throws a TypeError for input that
 * is none of them.
 */
export function readPublicKey(input: unknown): (alg: string) => Promise<CryptoKey> {
  const byAlgorithm = new Map<string, Promise<CryptoKey>>();
  const once = (importFor: (alg: string) => Promise<CryptoKey>) => (alg: string) => {
    let imported = byAlgorithm.get(alg);
    if (!imported) {
      imported = importFor(alg);
      byAlgorithm.set(alg, imported);
    }
    return imported;
  };
  if (typeof input === 'string') {
    const { label, der } = pemBlock(input);
    if (label === 'PUBLIC KEY') {
      sequence(der, 'a PUBLIC KEY');
      return once((alg) => importSPKI(pemOf('PUBLIC KEY', der), alg));
    }
    if (label === 'RSA PUBLIC KEY') {
      sequence(der, 'an RSA PUBLIC KEY');
      const spki = pemOf('PUBLIC KEY', tlv(0x30, tlv(0x30, OID.rsaEncryption, DER_NULL), tlv(0x03, new Uint8Array([0]), der)));
      return once((alg) => importSPKI(spki, alg));
    }
    if (label === 'CERTIFICATE') {
      sequence(der, 'a CERTIFICATE');
      return once((alg) => importX509(pemOf('CERTIFICATE', der), alg));
    }
    const privateKey = privatePem(input);
    return once(async (alg) => (await importJWK(await privateKey.publicJwk(), alg)) as CryptoKey);
  }
  if (input !== null && typeof input === 'object' && typeof (input as JWK).kty === 'string') {
    const jwk = publicMembers(input as JWK);
    return once(async (alg) => (await importJWK(jwk, alg)) as CryptoKey);
  }
  throw new TypeError('neither a JWK nor PEM text');
}

/** A JWK's public members: what is left of a private JWK once its private ones are taken out. */
export function publicMembers(jwk: JWK): JWK {
  const {
    d: _d,
    p: _p,
    q: _q,
    dp: _dp,
    dq: _dq,
    qi: _qi,
    oth: _oth,
    k: _k,
    kid: _kid,
    alg: _alg,
    use: _use,
    key_ops: _ops,
    ext: _ext,
    ...rest
  } = jwk as JWK & { ext?: unknown };
  return rest;
}

const CURVE_OF_OPENSSL_NAME: Record<string, string> = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' };

function isKeyObject(value: unknown): value is KeyObjectLike {
  return (value as { [Symbol.toStringTag]?: unknown } | null)?.[Symbol.toStringTag] === 'KeyObject';
}

function kindOfJwk(jwk: JWK): KeyKind {
  if (jwk.kty === 'RSA') return { type: 'rsa' };
  if (jwk.kty === 'EC') return { type: 'ec', ...(jwk.crv && { curve: jwk.crv }) };
  if (jwk.kty === 'OKP') return { type: (jwk.crv ?? 'okp').toLowerCase() };
  return { type: jwk.kty ?? 'unknown' };
}

// ---------------------------------------------------------------------------------------------
// PEM and the little DER it takes to tell a key's kind and to wrap it as PKCS#8 or SPKI.

/** The DER encodings of the object identifiers a key's kind is read from. */
const OID = {
  rsaEncryption: oid([0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01]),
  rsassaPss: oid([0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0a]),
  ecPublicKey: oid([0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01]),
  ed25519: oid([0x2b, 0x65, 0x70]),
  ed448: oid([0x2b, 0x65, 0x71]),
};
const CURVES: [Uint8Array, string][] = [
  [oid([0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07]), 'P-256'],
  [oid([0x2b, 0x81, 0x04, 0x00, 0x22]), 'P-384'],
  [oid([0x2b, 0x81, 0x04, 0x00, 0x23]), 'P-521'],
];
const DER_NULL = new Uint8Array([0x05, 0x00]);

function oid(body: number[]): Uint8Array {
  return tlv(0x06, new Uint8Array(body));
}

/** A private key's PEM text, read at once; imported by Web Crypto (as PKCS#8) when first used. */
function privatePem(text: string): PrivateKey {
  const { label, der } = pemBlock(text);
  let pkcs8: Uint8Array;
  let kind: KeyKind;
  if (label === 'PRIVATE KEY') {
    pkcs8 = der;
    kind = kindOfPkcs8(der);
  } else if (label === 'RSA PRIVATE KEY') {
    sequence(der, 'an RSA PRIVATE KEY');
    pkcs8 = tlv(0x30, tlv(0x02, new Uint8Array([0])), tlv(0x30, OID.rsaEncryption, DER_NULL), tlv(0x04, der));
    kind = { type: 'rsa' };
  } else if (label === 'EC PRIVATE KEY') {
    // SEC1: version, the private key, then its curve ([0]) and public key ([1]), each optional.
    const parts = sequence(der, 'an EC PRIVATE KEY');
    const curveOid = parts.find((part) => part.tag === 0xa0);
    if (!curveOid) throw new TypeError('an EC PRIVATE KEY that does not name its curve');
    const curve = curveOf(curveOid.body);
    pkcs8 = tlv(0x30, tlv(0x02, new Uint8Array([0])), tlv(0x30, OID.ecPublicKey, curveOid.body), tlv(0x04, der));
    kind = { type: 'ec', curve };
  } else if (label === 'ENCRYPTED PRIVATE KEY') {
    throw new TypeError('an encrypted private key: give it decrypted');
  } else {
    throw new TypeError(`PEM text of a ${label}, not of a private key`);
  }
  const pem = pemOf('PRIVATE KEY', pkcs8);
  let extractable: Promise<CryptoKey> | undefined;
  const byAlgorithm = new Map<string, Promise<CryptoKey>>();
  return {
    kind,
    signingKey(alg) {
      let imported = byAlgorithm.get(alg);
      if (!imported) {
        imported = importPKCS8(pem, alg);
        byAlgorithm.set(alg, imported);
      }
      return imported;
    },
    async publicJwk() {
      extractable ??= importPKCS8(pem, anyAlgorithmOf(kind), { extractable: true });
      return publicMembers(await exportJWK(await extractable));
    },
  };
}

/** One algorithm a key of this kind can be imported for (the public half is the same for all). */
function anyAlgorithmOf(kind: KeyKind): string {
  if (kind.type === 'rsa') return 'RS256';
  if (kind.type === 'rsa-pss') return 'PS256';
  if (kind.type === 'ed25519' || kind.type === 'ed448') return 'EdDSA';
  if (kind.type === 'ec') return kind.curve === 'P-384' ? 'ES384' : kind.curve === 'P-521' ? 'ES512' : 'ES256';
  throw new TypeError(`a ${kind.type} key, which cannot sign`);
}

function kindOfPkcs8(der: Uint8Array): KeyKind {
  // PrivateKeyInfo: version, AlgorithmIdentifier (an OID and its parameters), the key.
  const [, algorithm] = sequence(der, 'a PRIVATE KEY');
  if (algorithm?.tag !== 0x30) throw new TypeError('a PRIVATE KEY without its algorithm');
  const [id, parameters] = children(algorithm.body);
  const encoded = id && algorithm.body.subarray(0, id.end);
  if (!encoded) throw new TypeError('a PRIVATE KEY without its algorithm');
  if (same(encoded, OID.rsaEncryption)) return { type: 'rsa' };
  if (same(encoded, OID.rsassaPss)) return { type: 'rsa-pss' };
  if (same(encoded, OID.ed25519)) return { type: 'ed25519' };
  if (same(encoded, OID.ed448)) return { type: 'ed448' };
  if (same(encoded, OID.ecPublicKey)) {
    if (!parameters) throw new TypeError('an EC PRIVATE KEY that does not name its curve');
    return { type: 'ec', curve: curveOf(algorithm.body.subarray(id.end, parameters.end)) };
  }
  throw new TypeError('a PRIVATE KEY of an algorithm the kit does not sign with');
}

function curveOf(encodedOid: Uint8Array): string {
  const known = CURVES.find(([encoded]) => same(encoded, encodedOid));
  if (!known) throw new TypeError('an EC key on a curve other than P-256, P-384 and P-521');
  return known[1];
}

/** The one PEM block of `text`: its label and its DER bytes. */
function pemBlock(text: string): { label: string; der: Uint8Array } {
  const block = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/.exec(text);
  if (!block) throw new TypeError('not PEM text (no -----BEGIN ...----- block)');
  const base64 = block[2]!.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64) || base64.length % 4 !== 0) throw new TypeError(`a ${block[1]} block that is not base64`);
  const binary = atob(base64);
  const der = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) der[i] = binary.charCodeAt(i);
  return { label: block[1]!, der };
}

function pemOf(label: string, der: Uint8Array): string {
  let binary = '';
  for (const byte of der) binary += String.fromCharCode(byte);
  const lines = btoa(binary).match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

interface Element {
  readonly tag: number;
  readonly body: Uint8Array;
  /** Where the element ends in what it was read from. */
  readonly end: number;
}

/** The elements of a DER SEQUENCE that is all of `der`; a TypeError naming `what` when it is not one. */
function sequence(der: Uint8Array, what: string): Element[] {
  const outer = element(der, 0);
  if (outer?.tag !== 0x30 || outer.end !== der.length) throw new TypeError(`${what} block that is not DER`);
  const parts = children(outer.body);
  if (parts === undefined) throw new TypeError(`${what} block that is not DER`);
  return parts;
}

function children(body: Uint8Array): Element[] {
  const parts: Element[] = [];
  for (let offset = 0; offset < body.length; ) {
    const part = element(body, offset);
    if (!part) throw new TypeError('a key whose DER is cut short');
    parts.push(part);
    offset = part.end;
  }
  return parts;
}

function element(bytes: Uint8Array, offset: number): Element | undefined {
  const tag = bytes[offset];
  let length = bytes[offset + 1];
  if (tag === undefined || length === undefined) return undefined;
  let start = offset + 2;
  if (length & 0x80) {
    const size = length & 0x7f;
    if (size === 0 || size > 4 || start + size > bytes.length) return undefined;
    length = 0;
    for (let i = 0; i < size; i++) length = length * 256 + bytes[start + i]!;
    start += size;
  }
  const end = start + length;
  if (end > bytes.length) return undefined;
  return { tag, body: bytes.subarray(start, end), end };
}

/** One DER element: its tag, its length, its contents. */
function tlv(tag: number, ...contents: Uint8Array[]): Uint8Array {
  const length = contents.reduce((sum, part) => sum + part.length, 0);
  const lengthBytes: number[] = [];
  if (length < 0x80) lengthBytes.push(length);
  else {
    for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) lengthBytes.unshift(rest & 0xff);
    lengthBytes.unshift(0x80 | lengthBytes.length);
  }
  const out = new Uint8Array(1 + lengthBytes.length + length);
  out[0] = tag;
  out.set(lengthBytes, 1);
  let offset = 1 + lengthBytes.length;
  for (const part of contents) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

function same(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
