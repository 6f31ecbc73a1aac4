// Keys, digests and signatures without node:crypto (the core runs where only Web APIs do): the
// digests the kit takes synchronously are node:crypto's to the byte, and the keys the options take
// as PEM text (PKCS#8, PKCS#1, SEC1, SPKI) or JWK are read with jose and Web Crypto as node:crypto
// read them: the same kind, the same public key, signatures that verify with node:crypto's key.
import { createHash, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { compactVerify, flattenedVerify, SignJWT, type JWK } from 'jose';
import { base64url, equalInConstantTime, hex, sha256 } from '../src/core/sha256.js';
import { readPrivateKey, readPublicKey } from '../src/core/keys.js';
import { NotificationSigner } from '../src/push/signer.js';
import { bearerJwt } from '../src/index.js';

describe('sha256 in plain JavaScript', () => {
  test('is node:crypto’s digest for every length around the block boundaries, and for UTF-8 text', () => {
    for (let length = 0; length <= 200; length++) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 31 + length) & 0xff);
      expect(hex(sha256(bytes))).toBe(createHash('sha256').update(bytes).digest('hex'));
    }
    const text = `task-1\0${JSON.stringify({ role: 'user', parts: [{ text: 'héllo wörld ✓ 🚀' }] })}`;
    expect(base64url(sha256(text))).toBe(createHash('sha256').update(text).digest('base64url'));
    const large = new Uint8Array(1_000_003).map((_, i) => i % 251);
    expect(hex(sha256(large))).toBe(createHash('sha256').update(large).digest('hex'));
  });

  test('equalInConstantTime tells equal bytes from unequal ones of any length', () => {
    expect(equalInConstantTime(sha256('a'), sha256('a'))).toBe(true);
    expect(equalInConstantTime(sha256('a'), sha256('b'))).toBe(false);
    expect(equalInConstantTime(new Uint8Array([1, 2]), new Uint8Array([1, 2, 3]))).toBe(false);
  });
});

const pairs = {
  rsa: generateKeyPairSync('rsa', { modulusLength: 2048 }),
  'ec P-256': generateKeyPairSync('ec', { namedCurve: 'P-256' }),
  'ec P-384': generateKeyPairSync('ec', { namedCurve: 'P-384' }),
  'ec P-521': generateKeyPairSync('ec', { namedCurve: 'P-521' }),
  ed25519: generateKeyPairSync('ed25519'),
};
const ALGORITHM: Record<keyof typeof pairs, string> = {
  rsa: 'RS256',
  'ec P-256': 'ES256',
  'ec P-384': 'ES384',
  'ec P-521': 'ES512',
  ed25519: 'EdDSA',
};
const KIND: Record<keyof typeof pairs, object> = {
  rsa: { type: 'rsa' },
  'ec P-256': { type: 'ec', curve: 'P-256' },
  'ec P-384': { type: 'ec', curve: 'P-384' },
  'ec P-521': { type: 'ec', curve: 'P-521' },
  ed25519: { type: 'ed25519' },
};

/** Each way node:crypto writes a private key as PEM (or JWK) that it reads back. */
function privateForms(name: keyof typeof pairs, privateKey: KeyObject): [string, string | JWK | KeyObject][] {
  const forms: [string, string | JWK | KeyObject][] = [
    ['PKCS#8 PEM', privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()],
    ['JWK', privateKey.export({ format: 'jwk' }) as JWK],
    ['KeyObject', privateKey],
  ];
  if (name === 'rsa') forms.push(['PKCS#1 PEM', privateKey.export({ format: 'pem', type: 'pkcs1' }).toString()]);
  if (name.startsWith('ec')) forms.push(['SEC1 PEM', privateKey.export({ format: 'pem', type: 'sec1' }).toString()]);
  return forms;
}

describe('private keys read with jose and Web Crypto', () => {
  for (const [name, { privateKey, publicKey }] of Object.entries(pairs) as [keyof typeof pairs, (typeof pairs)['rsa']][]) {
    const expectedPublic = publicKey.export({ format: 'jwk' });
    for (const [form, input] of privateForms(name, privateKey)) {
      test(`${name} as ${form}: its kind, its public half, and a signature node:crypto's public key verifies`, async () => {
        const key = readPrivateKey(input);
        expect(key.kind).toEqual(KIND[name]);
        expect(await key.publicJwk()).toEqual(expectedPublic);
        const alg = ALGORITHM[name];
        const token = await new SignJWT({ sub: 'x' }).setProtectedHeader({ alg }).sign(await key.signingKey(alg));
        await expect(compactVerify(token, publicKey)).resolves.toBeDefined();
      });
    }
  }

  test.each([
    ['text that is not PEM', 'not a pem', /not PEM text/],
    ['a public key', pairs.rsa.publicKey.export({ format: 'pem', type: 'spki' }).toString(), /not of a private key/],
    ['a PEM block whose DER is cut short', '-----BEGIN PRIVATE KEY-----\nMIIBVQIBADAN\n-----END PRIVATE KEY-----', /not DER/],
    ['an encrypted key', '-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----', /encrypted/],
    ['a public JWK', pairs['ec P-256'].publicKey.export({ format: 'jwk' }), /public key/],
    ['a public KeyObject', pairs['ec P-256'].publicKey, /public KeyObject/],
  ])('%s is refused at once, saying why', (_name, input, why) => {
    expect(() => readPrivateKey(input)).toThrow(why);
  });

  test('an EC key on a curve the kit does not sign with is refused at once', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
    expect(() => readPrivateKey(privateKey.export({ format: 'pem', type: 'sec1' }).toString())).toThrow(/curve/);
    expect(() => readPrivateKey(privateKey.export({ format: 'pem', type: 'pkcs8' }).toString())).toThrow(/curve/);
  });
});

describe('public keys to verify bearer tokens with', () => {
  const { privateKey, publicKey } = pairs['ec P-256'];
  const rsa = pairs.rsa;
  const token = (key: KeyObject, alg: string) =>
    new SignJWT({ sub: 'alice' }).setProtectedHeader({ alg }).setExpirationTime('5m').sign(key);

  test.each([
    ['SPKI PEM', publicKey.export({ format: 'pem', type: 'spki' }).toString()],
    ['a private key’s PEM', privateKey.export({ format: 'pem', type: 'sec1' }).toString()],
    ['a public JWK', publicKey.export({ format: 'jwk' })],
    ['a private JWK', privateKey.export({ format: 'jwk' })],
  ])('%s verifies what its private key signed, and nothing else', async (_form, input) => {
    const verify = readPublicKey(input);
    await expect(compactVerify(await token(privateKey, 'ES256'), (header) => verify(header.alg!))).resolves.toBeDefined();
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    await expect(compactVerify(await token(other, 'ES256'), (header) => verify(header.alg!))).rejects.toThrow();
  });

  test('an RSA PUBLIC KEY (PKCS#1) verifies RS256 and PS256 tokens of its key', async () => {
    const verify = readPublicKey(rsa.publicKey.export({ format: 'pem', type: 'pkcs1' }).toString());
    for (const alg of ['RS256', 'PS256']) {
      await expect(compactVerify(await token(rsa.privateKey, alg), (header) => verify(header.alg!))).resolves.toBeDefined();
    }
  });

  test('bearerJwt with a PEM public key lets the token’s subject in, and says at once when the key is not one', async () => {
    const strategy = bearerJwt({ publicKey: publicKey.export({ format: 'pem', type: 'spki' }).toString() });
    const authorization = `Bearer ${await token(privateKey, 'ES256')}`;
    await expect(strategy.authenticate({ headers: { authorization } })).resolves.toMatchObject({ id: 'alice', scheme: 'Bearer' });
    // A token whose header names an HMAC algorithm is refused before any key is made for it.
    const forged = await new SignJWT({ sub: 'mallory' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(publicKey.export({ format: 'pem', type: 'spki' }).toString()));
    await expect(strategy.authenticate({ headers: { authorization: `Bearer ${forged}` } })).rejects.toThrow(/invalid token/);
    expect(() => bearerJwt({ publicKey: 'not a key' })).toThrow(/bearerJwt: the publicKey is not a usable public key/);
  });
});

describe('the push signer', () => {
  test('with a PKCS#1 RSA key: its JWKS holds node:crypto’s public key, and its tokens sign the body’s SHA-256', async () => {
    const { privateKey, publicKey } = pairs.rsa;
    const signer = NotificationSigner.create({ key: privateKey.export({ format: 'pem', type: 'pkcs1' }).toString() });
    const { keys } = await signer.jwks();
    const expected = publicKey.export({ format: 'jwk' });
    expect(keys).toEqual([{ ...expected, kid: expect.any(String), alg: 'RS256', use: 'sig' }]);
    // The kid is the RFC 7638 thumbprint: the SHA-256 of the required members, in order.
    expect(keys[0]!.kid).toBe(
      createHash('sha256')
        .update(JSON.stringify({ e: expected.e, kty: 'RSA', n: expected.n }))
        .digest('base64url'),
    );
    const body = new TextEncoder().encode('{"kind":"status-update"}');
    const { payload, protectedHeader } = await flattenedVerifyOf(await signer.sign(body), publicKey);
    expect(protectedHeader).toEqual({ alg: 'RS256', kid: keys[0]!.kid, typ: 'JWT' });
    expect(payload.request_body_sha256).toBe(createHash('sha256').update(body).digest('hex'));
  });

  test('without a key: a new RSA key made with Web Crypto, whose public half is served', async () => {
    const signer = NotificationSigner.create();
    const { keys } = await signer.jwks();
    expect(keys).toEqual([expect.objectContaining({ kty: 'RSA', alg: 'RS256', use: 'sig' })]);
    const publicKey = createPublicKey({ key: keys[0]! as never, format: 'jwk' });
    const { payload } = await flattenedVerifyOf(await signer.sign(new Uint8Array([1, 2, 3])), publicKey);
    expect(payload.request_body_sha256).toBe(
      createHash('sha256')
        .update(new Uint8Array([1, 2, 3]))
        .digest('hex'),
    );
  });
});

async function flattenedVerifyOf(jwt: string, key: KeyObject) {
  const [protectedHeader, payload, signature] = jwt.split('.') as [string, string, string];
  const { payload: bytes, protectedHeader: header } = await flattenedVerify({ protected: protectedHeader, payload, signature }, key);
  return { payload: JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>, protectedHeader: header };
}
