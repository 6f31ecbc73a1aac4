// The digests taken where the code cannot wait: a card's ETag, the id derived for a message an
// older release kept without one, an API key's digest. Web Crypto's digest is asynchronous, and
// node:crypto is not on every runtime the fetch handler serves from, so SHA-256 comes from
// @noble/hashes (audited, no dependencies, synchronous, the same bytes on every runtime). Nothing
// here is a secret's protection: a digest only gives a value a fixed length (API keys) or a
// stable name (ids, ETags). Digests that are awaited anyway (a push notification's body) go
// through Web Crypto.
import { sha256 as digest } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { base64url as jose64 } from 'jose';

/** The SHA-256 digest of `data` (a string is digested as its UTF-8 bytes): 32 bytes. */
export function sha256(data: string | Uint8Array): Uint8Array {
  return digest(typeof data === 'string' ? utf8ToBytes(data) : data);
}

/** Bytes in base64url, without padding (RFC 4648 5): what JOSE and the kit's ids and ETags use. */
export function base64url(bytes: Uint8Array): string {
  return jose64.encode(bytes);
}

/** Bytes in lower-case hexadecimal. */
export const hex: (bytes: Uint8Array) => string = bytesToHex;

/**
 * Whether two byte strings are equal, in a time that depends on their length only: every byte is
 * compared, whatever the first difference (what node:crypto's timingSafeEqual does, for digests).
 */
export function equalInConstantTime(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}
