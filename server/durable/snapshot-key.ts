// The key durable runs are sealed with: CODEMODE_SNAPSHOT_KEY, 32 random bytes as base64 or hex, and the key id messages name it by.
//
// The environment variable is the only source (never the config file, which is often committed). Its value is
// never echoed: an error says what shape is expected and how to make one. The key id is a keyed hash of the key
// (HMAC, so it reveals nothing of it) that a sealed row carries in its header: a row sealed before the key was
// rotated is refused naming both ids rather than failing as "tampered".
import { createHmac, hkdfSync } from 'node:crypto';
import { ConfigError } from '../errors.ts';

/** The environment variable that holds the key. */
export const SNAPSHOT_KEY_ENV = 'CODEMODE_SNAPSHOT_KEY';
/** AES-256: the key is 32 bytes. */
export const SNAPSHOT_KEY_BYTES = 32;
/** Bytes of the key id a sealed header carries: 64 bits tell rotated keys apart without identifying the key. */
export const SNAPSHOT_KEY_ID_BYTES = 8;
/** How to make a key, as every refusal says it. */
export const MAKE_SNAPSHOT_KEY_HINT = `make one with \`openssl rand -base64 32\` and set ${SNAPSHOT_KEY_ENV} to it (keep it secret, and the same on every Gateway sharing the database)`;

/** The loaded key: the AES key derived from it and its id. The raw value is not kept. */
export interface SnapshotKey {
  /** HKDF of the configured bytes for sealing only (so the id's HMAC and the cipher never use one key for two jobs). */
  readonly sealKey: Buffer;
  /** Hex of SNAPSHOT_KEY_ID_BYTES: how messages and sealed headers name the key. */
  readonly id: string;
}

/** The key is missing or malformed: the message says what is expected and how to make one, never the value. */
export class SnapshotKeyError extends Error {
  override name = 'SnapshotKeyError';
}

/** The key's bytes, or why `value` is not one: 32 bytes as base64 (standard or URL-safe, padded or not) or 64 hex digits. */
function decodeKey(value: string): Buffer | string {
  const text = value.trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) {
    const bytes = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (bytes.length === SNAPSHOT_KEY_BYTES) return bytes;
  }
  const shape = text === '' ? 'is empty' : `is ${text.length} characters that are not 32 bytes in base64 (44 characters) or hex (64 characters)`;
  return `${SNAPSHOT_KEY_ENV} ${shape}; ${MAKE_SNAPSHOT_KEY_HINT}`;
}

/** The key from `bytes` (32 of them). */
export function snapshotKeyFromBytes(bytes: Uint8Array): SnapshotKey {
  if (bytes.length !== SNAPSHOT_KEY_BYTES) throw new SnapshotKeyError(`a snapshot key is ${SNAPSHOT_KEY_BYTES} bytes, not ${bytes.length}; ${MAKE_SNAPSHOT_KEY_HINT}`);
  if (bytes.every((b) => b === bytes[0])) throw new SnapshotKeyError(`${SNAPSHOT_KEY_ENV} is one byte repeated, not a random key; ${MAKE_SNAPSHOT_KEY_HINT}`);
  const id = createHmac('sha256', bytes).update('codemode snapshot key id v1').digest().subarray(0, SNAPSHOT_KEY_ID_BYTES).toString('hex');
  const sealKey = Buffer.from(hkdfSync('sha256', bytes, Buffer.alloc(0), 'codemode durable run seal v1', SNAPSHOT_KEY_BYTES));
  return Object.freeze({ sealKey, id });
}

/** The key `env` holds; throws SnapshotKeyError naming the variable and how to make a key when it is missing or malformed. */
export function loadSnapshotKey(env: Readonly<Record<string, string | undefined>> = process.env): SnapshotKey {
  const value = env[SNAPSHOT_KEY_ENV];
  if (value === undefined) throw new SnapshotKeyError(`${SNAPSHOT_KEY_ENV} is not set; ${MAKE_SNAPSHOT_KEY_HINT}`);
  const decoded = decodeKey(value);
  if (typeof decoded === 'string') throw new SnapshotKeyError(decoded);
  return snapshotKeyFromBytes(decoded);
}

/** The key a Gateway with `runs.durable` needs at start: a missing or malformed one is a ConfigError naming runs.durable and what to do. */
export function durableRunsKey(env: Readonly<Record<string, string | undefined>> = process.env): SnapshotKey {
  try {
    return loadSnapshotKey(env);
  } catch (err) {
    if (err instanceof SnapshotKeyError) throw new ConfigError('runs.durable', `durable runs are sealed with a key of their own, and ${err.message}`);
    throw err;
  }
}
