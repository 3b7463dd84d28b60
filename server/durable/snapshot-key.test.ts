// CODEMODE_SNAPSHOT_KEY: the shapes accepted, refusals that say how to make a key without echoing the value, key ids, and the start-up check.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.ts';
import { durableRunsKey, loadSnapshotKey, SnapshotKeyError } from './snapshot-key.ts';

const bytes = randomBytes(32);
const env = (value: string | undefined): Record<string, string> => (value === undefined ? {} : { CODEMODE_SNAPSHOT_KEY: value });

function refusal(value: string | undefined): string {
  try {
    loadSnapshotKey(env(value));
  } catch (err) {
    expect(err).toBeInstanceOf(SnapshotKeyError);
    return (err as Error).message;
  }
  throw new Error('expected the key to be refused');
}

describe('loadSnapshotKey', () => {
  it('32 bytes as base64 (padded or not, URL-safe too) or as hex, with surrounding whitespace: the same key, the same id', () => {
    const ids = [bytes.toString('base64'), bytes.toString('base64').replace(/=$/, ''), bytes.toString('base64url'), bytes.toString('hex'), ` ${bytes.toString('base64')}\n`].map(
      (value) => loadSnapshotKey(env(value)).id,
    );
    expect(new Set(ids).size).toBe(1);
    expect(ids[0]).toMatch(/^[0-9a-f]{16}$/);
  });

  it('the id names the key without being it; another key has another id; the sealing key is derived, not the configured bytes', () => {
    const key = loadSnapshotKey(env(bytes.toString('base64')));
    expect(bytes.toString('hex')).not.toContain(key.id);
    expect(key.sealKey.equals(bytes)).toBe(false);
    expect(loadSnapshotKey(env(randomBytes(32).toString('base64'))).id).not.toBe(key.id);
  });

  it('missing, empty, too short, too long, a passphrase, one byte repeated: refused naming the variable and how to make a key, never echoing the value', () => {
    const values = [undefined, '', randomBytes(16).toString('base64'), randomBytes(48).toString('base64'), bytes.toString('hex').slice(1), 'correct horse battery staple', Buffer.alloc(32, 7).toString('base64')];
    for (const value of values) {
      const message = refusal(value);
      expect(message).toContain('CODEMODE_SNAPSHOT_KEY');
      expect(message).toContain('openssl rand -base64 32');
      if (value) expect(message).not.toContain(value.trim());
    }
    expect(refusal(undefined)).toMatch(/^CODEMODE_SNAPSHOT_KEY is not set;/);
    expect(refusal('short')).toContain('is 5 characters that are not 32 bytes in base64 (44 characters) or hex (64 characters)');
  });

  it('durableRunsKey (the start-up check of runs.durable): a ConfigError naming runs.durable', () => {
    expect(durableRunsKey(env(bytes.toString('hex'))).id).toBe(loadSnapshotKey(env(bytes.toString('base64'))).id);
    let error: unknown;
    try {
      durableRunsKey({});
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).path).toBe('runs.durable');
    expect((error as ConfigError).message).toContain('runs.durable: durable runs are sealed with a key of their own, and CODEMODE_SNAPSHOT_KEY is not set; make one with `openssl rand -base64 32`');
  });
});
