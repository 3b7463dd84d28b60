// Sealing parked runs at rest: round trip, each refusal naming what failed (key, run, session, change, base image), and no guest string in a database file.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { baseImageId } from '../executors/quickjs/base-image.ts';
import { quickjsModule } from '../executors/quickjs/executor.ts';
import { DurableRunStore } from '../sessions/durable-runs.ts';
import { openSqliteDatabase } from '../sessions/sqlite.ts';
import { MAX_SEALED_PLAINTEXT_BYTES, openSealed, readSealHeader, seal, SEAL_FORMAT_VERSION } from './seal.ts';
import { snapshotKeyFromBytes } from './snapshot-key.ts';

const key = snapshotKeyFromBytes(randomBytes(32));
const otherKey = snapshotKeyFromBytes(randomBytes(32));
const binding = { runId: 'run_abc', sessionId: 'session one' };
const BASE = 'quickjs-wasi@3.7.0+0123456789abcdef01234567';
const SECRET = 'guest-secret-7f3a9c-do-not-store';
const plaintext = new TextEncoder().encode(JSON.stringify({ record: { logs: [`the cell said ${SECRET}`] }, pending: [{ id: 'r1', tool: 'read' }] }));

function expectRefused(result: ReturnType<typeof openSealed>, failure: string, runId = binding.runId): string {
  expect(result.ok).toBe(false);
  if (result.ok) throw new Error('unreachable');
  expect(result.failure).toBe(failure);
  expect(result.message).toContain(`the stored snapshot of run "${runId}"`);
  return result.message;
}

describe('seal and openSealed', () => {
  it('round trip: the plaintext, its key id and its base image come back; the header is readable without the key; the plaintext is not in the blob', () => {
    const sealed = seal(key, binding, BASE, plaintext);
    const opened = openSealed(key, binding, BASE, sealed);
    expect(opened.ok).toBe(true);
    if (!opened.ok) return;
    expect(Buffer.from(opened.plaintext).equals(Buffer.from(plaintext))).toBe(true);
    expect(opened).toMatchObject({ keyId: key.id, baseImageId: BASE });
    expect(readSealHeader(sealed)).toMatchObject({ ok: true, header: { version: SEAL_FORMAT_VERSION, keyId: key.id, baseImageId: BASE } });
    expect(Buffer.from(sealed).includes(Buffer.from(SECRET))).toBe(false);
    // a fresh IV each time: sealing the same thing twice gives two blobs
    expect(Buffer.from(seal(key, binding, BASE, plaintext)).equals(Buffer.from(sealed))).toBe(false);
  });

  it('a row moved to another run or another session: refused naming which', () => {
    const sealed = seal(key, binding, BASE, plaintext);
    expect(expectRefused(openSealed(key, { ...binding, runId: 'run_other' }, BASE, sealed), 'run', 'run_other')).toContain('was sealed for another run');
    expect(expectRefused(openSealed(key, { ...binding, sessionId: 'session two' }, BASE, sealed), 'session')).toContain('was sealed for another session than "session two"');
  });

  it('a byte changed anywhere (ciphertext, tag, IV, the base image id in the header): refused as changed after sealing', () => {
    const sealed = seal(key, binding, BASE, plaintext);
    const header = readSealHeader(sealed);
    if (!header.ok) throw new Error('unreachable');
    const positions = { ciphertext: header.headerBytes + 12 + 5, tag: sealed.length - 1, iv: header.headerBytes + 1, baseImageId: header.headerBytes - 3 };
    for (const [where, at] of Object.entries(positions)) {
      const edited = Uint8Array.from(sealed);
      // flip to another printable character, so the header still parses and only authentication can tell
      edited[at] = where === 'baseImageId' ? ((edited[at] ?? 0) === 0x61 ? 0x62 : 0x61) : (edited[at] ?? 0) ^ 0x01;
      const message = expectRefused(openSealed(key, binding, BASE, edited), 'tampered');
      expect(message, where).toContain('failed authentication: it was changed after it was sealed');
    }
  });

  it('sealed with another key (a rotated CODEMODE_SNAPSHOT_KEY): refused naming both key ids', () => {
    const message = expectRefused(openSealed(otherKey, binding, BASE, seal(key, binding, BASE, plaintext)), 'key');
    expect(message).toContain(`was sealed with snapshot key ${key.id}, but CODEMODE_SNAPSHOT_KEY here is key ${otherKey.id}`);
  });

  it('a snapshot taken on another base image (another prelude, another QuickJS build): refused naming both ids, after authenticating them', () => {
    const wasm = quickjsModule();
    const mine = baseImageId(wasm.hash, { maxStackSizeBytes: 256 * 1024 });
    const theirs = baseImageId(wasm.hash, { maxStackSizeBytes: 256 * 1024, preludePrefix: 'globalThis.changed = true;' });
    const message = expectRefused(openSealed(key, binding, mine, seal(key, binding, theirs, plaintext)), 'base_image');
    expect(message).toContain(`was taken on base image ${theirs}, but this Gateway runs base image ${mine}`);
  });

  it('what is not a sealed blob (random bytes, empty, truncated, another format version, not bytes): refused without throwing', () => {
    const sealed = seal(key, binding, BASE, plaintext);
    expectRefused(openSealed(key, binding, BASE, randomBytes(200)), 'not_sealed');
    expectRefused(openSealed(key, binding, BASE, new Uint8Array(0)), 'not_sealed');
    expectRefused(openSealed(key, binding, BASE, sealed.subarray(0, 40)), 'not_sealed');
    expectRefused(openSealed(key, binding, BASE, 'text' as unknown as Uint8Array), 'not_sealed');
    const future = Uint8Array.from(sealed);
    future[4] = 9;
    expect(expectRefused(openSealed(key, binding, BASE, future), 'format')).toContain(`was sealed in format 9, and this build reads format ${SEAL_FORMAT_VERSION}`);
  });

  it('seal refuses what it cannot name or hold: a base image id that is not printable ASCII, a plaintext over the bound', () => {
    expect(() => seal(key, binding, 'base with spaces', plaintext)).toThrow(/baseImageId must be 1 to 255 printable ASCII/);
    expect(() => seal(key, binding, 'x'.repeat(256), plaintext)).toThrow(TypeError);
    expect(() => seal(key, binding, BASE, { byteLength: MAX_SEALED_PLAINTEXT_BYTES + 1 } as Uint8Array)).toThrow(RangeError);
  });
});

describe('a sealed row at rest in a SQLite file', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** Parks `blob` as run_abc in a new SQLite file, closes it, and returns every byte of the file and its journal. */
  async function fileBytesAfterParking(blob: Uint8Array): Promise<Buffer> {
    const dir = mkdtempSync(join(tmpdir(), 'codemode-at-rest-'));
    dirs.push(dir);
    const path = join(dir, 'sessions.db');
    const db = openSqliteDatabase(path);
    const store = new DurableRunStore(db);
    const parked = await store.park({
      ...binding,
      agentRunId: 'ar1',
      ownerId: 'local',
      baseImageId: BASE,
      sealed: blob,
      snapshotRawBytes: 1,
      snapshotStoredBytes: 1,
      expiresAt: Date.now() + 60_000,
      parkedBy: 'gw_AAAAAAAAAAAAAAAA',
    });
    expect(parked.kind).toBe('parked');
    await db.close();
    // the file and whatever journal SQLite left beside it: everything on disk
    return Buffer.concat(readdirSync(dir).map((name) => readFileSync(join(dir, name))));
  }

  it('the secret a cell held is nowhere in the database file: parked sealed it is not, parked in the clear (the control) it is', async () => {
    const control = await fileBytesAfterParking(plaintext);
    expect(control.includes(Buffer.from(SECRET))).toBe(true);
    const sealed = await fileBytesAfterParking(seal(key, binding, BASE, plaintext));
    expect(sealed.includes(Buffer.from(SECRET))).toBe(false);
    expect(sealed.includes(Buffer.from('the cell said'))).toBe(false);
  });

  it('read back from the file, the sealed row opens for its run with the key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'codemode-at-rest-'));
    dirs.push(dir);
    const path = join(dir, 'sessions.db');
    const first = new DurableRunStore(openSqliteDatabase(path));
    await first.park({ ...binding, agentRunId: 'ar1', ownerId: 'local', baseImageId: BASE, sealed: seal(key, binding, BASE, plaintext), snapshotRawBytes: 1, snapshotStoredBytes: 1, expiresAt: Date.now() + 60_000, parkedBy: 'gw_AAAAAAAAAAAAAAAA' });
    await first.db.close();
    const second = new DurableRunStore(openSqliteDatabase(path));
    try {
      const read = await second.get(binding.runId);
      if (!read?.ok) throw new Error(`expected the row, got ${JSON.stringify(read)}`);
      const opened = openSealed(key, binding, read.run.baseImageId, read.run.sealed);
      expect(opened.ok && new TextDecoder().decode(opened.plaintext)).toContain(SECRET);
    } finally {
      await second.db.close();
    }
  });
});
