// Sealing a parked run at rest: AES-256-GCM under CODEMODE_SNAPSHOT_KEY, bound to its run and session, naming its key and base image.
//
// What a durable row stores (the snapshot, pending calls and run record, packed by the caller) holds guest
// strings, so it is never written in the clear. A sealed blob is a versioned header, then a random 96-bit IV,
// the ciphertext and GCM's 128-bit tag:
//
//   offset  bytes  field
//   0       4      magic "CMDS"
//   4       1      format version (SEAL_FORMAT_VERSION)
//   5       8      key id (snapshot-key.ts): a blob of a rotated key is refused naming both keys
//   13      8      run binding: SHA-256 of the run id, first 8 bytes
//   21      8      session binding: SHA-256 of the session id, first 8 bytes
//   29      1      length of the base image id (1..255)
//   30      n      the base image id (ASCII): the snapshot restores only on that base
//   30+n    12     IV
//   42+n    ...    ciphertext, then the 16-byte tag
//
// The whole header, the run id and the session id are GCM's associated data: a header edited by hand, or a row
// moved to another run or session, fails authentication. The bindings let a refusal say which: a blob of another
// run or session is named as such before decryption is tried; any other change is "changed after sealing". The
// base image is compared after authentication, so its message names the real base. Opening never throws for
// what a row holds: it returns `{ ok: false, failure, message }`, and the caller fails the run with the message.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { SNAPSHOT_KEY_ENV, SNAPSHOT_KEY_ID_BYTES, type SnapshotKey } from './snapshot-key.ts';

export const SEAL_FORMAT_VERSION = 1;
const MAGIC = Buffer.from('CMDS', 'ascii');
const BINDING_BYTES = 8;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const FIXED_HEADER_BYTES = MAGIC.length + 1 + SNAPSHOT_KEY_ID_BYTES + 2 * BINDING_BYTES + 1;
/** A base image id is printable ASCII of at most 255 characters (one length byte). */
const BASE_IMAGE_ID = /^[\x21-\x7e]{1,255}$/;
/**
 * The largest plaintext sealed: the largest snapshot (maxSnapshotBytes at most 256 MiB) and its run record fit. A
 * blob read back that would hold more is refused before any work.
 */
export const MAX_SEALED_PLAINTEXT_BYTES = 512 * 1024 * 1024;

/** What a sealed blob is bound to: opening it for another run or session is refused. */
export interface SealBinding {
  runId: string;
  sessionId: string;
}

/** Why a blob could not be opened; each says what failed. */
export type SealFailure = 'not_sealed' | 'format' | 'key' | 'run' | 'session' | 'tampered' | 'base_image';

export type OpenResult = { ok: true; plaintext: Uint8Array; baseImageId: string; keyId: string } | { ok: false; failure: SealFailure; message: string };

/** What a header says, readable without the key (messages, a board that shows where a row came from). */
export interface SealHeader {
  version: number;
  keyId: string;
  baseImageId: string;
}

/** Seals `plaintext` for `binding` on `baseImageId` under `key`. Throws (a caller's bug) on an id or size out of bounds. */
export function seal(key: SnapshotKey, binding: SealBinding, baseImageId: string, plaintext: Uint8Array): Uint8Array {
  if (!BASE_IMAGE_ID.test(baseImageId)) throw new TypeError('baseImageId must be 1 to 255 printable ASCII characters');
  if (plaintext.byteLength > MAX_SEALED_PLAINTEXT_BYTES) throw new RangeError(`cannot seal ${plaintext.byteLength} bytes: at most ${MAX_SEALED_PLAINTEXT_BYTES}`);
  const header = Buffer.concat([
    MAGIC,
    Buffer.from([SEAL_FORMAT_VERSION]),
    Buffer.from(key.id, 'hex'),
    bindingOf('run', binding.runId),
    bindingOf('session', binding.sessionId),
    Buffer.from([baseImageId.length]),
    Buffer.from(baseImageId, 'ascii'),
  ]);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key.sealKey, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(associatedData(header, binding));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([header, iv, body, cipher.getAuthTag()]);
}

/** The header of a sealed blob, or why it is not one (no key needed, nothing authenticated yet). */
export function readSealHeader(sealed: Uint8Array): { ok: true; header: SealHeader; headerBytes: number } | { ok: false; failure: 'not_sealed' | 'format'; message: string } {
  const bytes = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
  if (bytes.length < FIXED_HEADER_BYTES + 1 + IV_BYTES + TAG_BYTES || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) {
    return { ok: false, failure: 'not_sealed', message: 'is not a sealed durable run (damaged, or written by something else)' };
  }
  const version = bytes[MAGIC.length] ?? 0;
  if (version !== SEAL_FORMAT_VERSION) {
    return { ok: false, failure: 'format', message: `was sealed in format ${version}, and this build reads format ${SEAL_FORMAT_VERSION}; resume it on the build that parked it` };
  }
  const baseLength = bytes[FIXED_HEADER_BYTES - 1] ?? 0;
  const headerBytes = FIXED_HEADER_BYTES + baseLength;
  const baseImageId = bytes.subarray(FIXED_HEADER_BYTES, headerBytes).toString('latin1');
  if (!BASE_IMAGE_ID.test(baseImageId) || bytes.length < headerBytes + IV_BYTES + TAG_BYTES) {
    return { ok: false, failure: 'not_sealed', message: 'has a damaged header (its base image id is not readable)' };
  }
  const keyId = bytes.subarray(MAGIC.length + 1, MAGIC.length + 1 + SNAPSHOT_KEY_ID_BYTES).toString('hex');
  return { ok: true, header: { version, keyId, baseImageId }, headerBytes };
}

/**
 * Opens `sealed` for `binding` with `key`, on a Gateway whose base image is `baseImageId`. Every refusal names the
 * run and what failed: not a sealed blob, another format, another key (both ids), another run or session (a moved
 * row), changed after sealing, or another base image (both ids). Never throws for what the blob holds.
 */
export function openSealed(key: SnapshotKey, binding: SealBinding, baseImageId: string, sealed: Uint8Array): OpenResult {
  const refuse = (failure: SealFailure, what: string): OpenResult => ({ ok: false, failure, message: `the stored snapshot of run "${binding.runId}" ${what}` });
  if (!(sealed instanceof Uint8Array)) return refuse('not_sealed', 'is not bytes (the row is damaged)');
  if (sealed.byteLength > MAX_SEALED_PLAINTEXT_BYTES + 64 * 1024) return refuse('not_sealed', `is ${sealed.byteLength} bytes, more than any sealed run`);
  const read = readSealHeader(sealed);
  if (!read.ok) return refuse(read.failure, read.message);
  const { header, headerBytes } = read;
  if (header.keyId !== key.id) {
    return refuse(
      'key',
      `was sealed with snapshot key ${header.keyId}, but ${SNAPSHOT_KEY_ENV} here is key ${key.id} (was the key rotated?); resume it on a Gateway started with the key it was sealed with`,
    );
  }
  const bytes = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
  const runAt = MAGIC.length + 1 + SNAPSHOT_KEY_ID_BYTES;
  if (!bytes.subarray(runAt, runAt + BINDING_BYTES).equals(bindingOf('run', binding.runId))) {
    return refuse('run', 'was sealed for another run (the row was moved or copied from another run); refused');
  }
  if (!bytes.subarray(runAt + BINDING_BYTES, runAt + 2 * BINDING_BYTES).equals(bindingOf('session', binding.sessionId))) {
    return refuse('session', `was sealed for another session than "${binding.sessionId}" (the row was moved between sessions); refused`);
  }
  let plaintext: Buffer;
  try {
    const iv = bytes.subarray(headerBytes, headerBytes + IV_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', key.sealKey, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(associatedData(bytes.subarray(0, headerBytes), binding));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    plaintext = Buffer.concat([decipher.update(bytes.subarray(headerBytes + IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]);
  } catch {
    return refuse('tampered', 'failed authentication: it was changed after it was sealed (a damaged or edited row); refused');
  }
  if (header.baseImageId !== baseImageId) {
    return refuse(
      'base_image',
      `was taken on base image ${header.baseImageId}, but this Gateway runs base image ${baseImageId} (another QuickJS build or guest prelude); it cannot be restored here`,
    );
  }
  return { ok: true, plaintext, baseImageId: header.baseImageId, keyId: header.keyId };
}

function bindingOf(kind: 'run' | 'session', id: string): Buffer {
  return createHash('sha256').update(`codemode ${kind}\0`).update(id, 'utf8').digest().subarray(0, BINDING_BYTES);
}

/** The header, then the run id and the session id, each length-prefixed so no two bindings share one encoding. */
function associatedData(header: Uint8Array, binding: SealBinding): Buffer {
  const run = Buffer.from(binding.runId, 'utf8');
  const session = Buffer.from(binding.sessionId, 'utf8');
  const lengths = Buffer.alloc(8);
  lengths.writeUInt32BE(run.length, 0);
  lengths.writeUInt32BE(session.length, 4);
  return Buffer.concat([header, lengths, run, session]);
}
