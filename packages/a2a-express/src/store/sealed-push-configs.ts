// Push configs sealed at rest: a push config holds what lets the agent call a client's webhook
// (its token, its credentials, often a URL with a key in it), so a store given a key keeps a
// task's configs encrypted (AES-256-GCM), the task's id bound in as associated data so that
// one task's sealed configs cannot be moved onto another's row. Several keys may be given: the
// first seals, every one opens, so a key is rotated by putting the new one first.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { StoredPushConfig } from '../model/task.js';

/** A key of 32 bytes: a Buffer, or a string of them in base64, base64url or hex. */
export type PushConfigKey = Uint8Array | string;

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

interface Key {
  readonly id: string;
  readonly bytes: Buffer;
}

export class PushConfigSeal {
  private readonly keys: readonly Key[];

  /** `keys`: one key, or several to rotate (the first seals, every one opens). */
  constructor(keys: PushConfigKey | readonly PushConfigKey[]) {
    const given = Array.isArray(keys) ? (keys as readonly PushConfigKey[]) : [keys as PushConfigKey];
    if (given.length === 0) throw new TypeError('pushConfigKey: give at least one key');
    this.keys = given.map((key, index) => {
      const bytes = keyBytes(key, index);
      return { bytes, id: createHash('sha256').update(bytes).digest('base64url').slice(0, 8) };
    });
  }

  /** `v1.<key id>.<iv, ciphertext and tag in base64url>`. */
  seal(taskId: string, configs: readonly StoredPushConfig[]): string {
    return this.sealJson(taskId, configs);
  }

  open(taskId: string, sealed: string): StoredPushConfig[] {
    return this.openJson(taskId, taskId, sealed) as StoredPushConfig[];
  }

  /**
   * What a running turn keeps to be resumed (what it was started with, its checkpoint), sealed
   * as push configs are: bound to the task, and to this use, so that neither can stand for the other.
   */
  sealTurn(taskId: string, turn: unknown): string {
    return this.sealJson(`${taskId}\u0000turn`, turn);
  }

  openTurn(taskId: string, sealed: string): unknown {
    return this.openJson(taskId, `${taskId}\u0000turn`, sealed);
  }

  /** Seals `value` as JSON, bound to `boundTo` (associated data): it opens only as that. */
  private sealJson(boundTo: string, value: unknown): string {
    const key = this.keys[0]!;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key.bytes, iv);
    cipher.setAAD(Buffer.from(boundTo));
    const sealed = Buffer.concat([iv, cipher.update(JSON.stringify(value), 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${VERSION}.${key.id}.${sealed.toString('base64url')}`;
  }

  private openJson(taskId: string, boundTo: string, sealed: string): unknown {
    const [version, keyId, body] = sealed.split('.');
    const key = this.keys.find((candidate) => candidate.id === keyId);
    if (version !== VERSION || body === undefined || !key)
      throw unopenable(taskId, `sealed with a key this store was not given (key ${keyId})`);
    const bytes = Buffer.from(body, 'base64url');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.bytes, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(boundTo));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      const plain = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]);
      return JSON.parse(plain.toString('utf8')) as unknown;
    } catch {
      throw unopenable(taskId, 'altered, or sealed for another task');
    }
  }
}

/**
 * What a read meets when a task's configs cannot be opened: the operator's to fix (a key missing),
 * so not an A2AError: the router logs it and the client is told only of an internal error.
 */
export class PushConfigsUnopenable extends Error {
  override readonly name = 'PushConfigsUnopenable';
}

export function unopenable(taskId: string, why: string): PushConfigsUnopenable {
  return new PushConfigsUnopenable(`the push configs of task ${JSON.stringify(taskId)} cannot be opened: ${why}`);
}

function keyBytes(key: PushConfigKey, index: number): Buffer {
  let bytes: Buffer;
  if (typeof key !== 'string') bytes = Buffer.from(key);
  else if (/^[0-9a-f]{64}$/i.test(key.trim())) bytes = Buffer.from(key.trim(), 'hex');
  else bytes = Buffer.from(key.trim(), 'base64');
  if (bytes.length !== 32) {
    throw new TypeError(
      `pushConfigKey, key ${index + 1}: a key is 32 bytes (a Buffer, or base64 or hex: \`openssl rand -base64 32\`), got ${bytes.length}`,
    );
  }
  return bytes;
}
