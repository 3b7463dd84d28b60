// The `runs` config fields (durable, maxParked, parkedInMemory) and what a Gateway does with it today: the snapshot key checked at start, a warning that parking is not durable yet, an instance id per start.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { configError } from '../config/testing.ts';
import { parseGatewayConfig } from '../config/load.ts';
import { createGateway, Gateway } from '../gateway.ts';
import { MAX_MAX_PARKED } from '../config/runs.ts';
import { MAX_SUSPENDED_RUNS } from '../config/shares.ts';
import { testConfig } from '../tools/testing.ts';
import { isGatewayInstanceId, newGatewayInstanceId } from './instance-id.ts';
import { loadSnapshotKey } from './snapshot-key.ts';

const base = '/srv/playground';
const loaded = { tools: [], plugins: [], pluginErrors: [] };
/** This process's environment without a snapshot key, plus `vars`. */
const envOf = (vars: Record<string, string> = {}): NodeJS.ProcessEnv => ({ ...process.env, CODEMODE_SNAPSHOT_KEY: undefined, ...vars });
const keyEnv = envOf({ CODEMODE_SNAPSHOT_KEY: randomBytes(32).toString('base64') });

describe('runs.durable', () => {
  it('absent: off, and no warning about it', () => {
    const config = parseGatewayConfig({}, base);
    expect(config.runs).toEqual({ durable: false, maxParked: MAX_SUSPENDED_RUNS, parkedInMemory: MAX_SUSPENDED_RUNS });
    expect(config.warnings ?? []).toEqual([]);
  });

  it('true: on, with no warning on a session database file or PostgreSQL; with an in-memory session database, a warning that runs cannot outlive the process', () => {
    const onFile = parseGatewayConfig({ runs: { durable: true } }, base);
    expect(onFile.runs).toEqual({ durable: true, maxParked: MAX_SUSPENDED_RUNS, parkedInMemory: MAX_SUSPENDED_RUNS });
    expect(onFile.warnings ?? []).toEqual([]);
    const inMemory = parseGatewayConfig({ runs: { durable: true }, sessions: { path: ':memory:' } }, base);
    expect(inMemory.warnings).toHaveLength(1);
    expect(inMemory.warnings?.[0]).toContain('which is in memory (sessions.path ":memory:"): they cannot outlive the process');
    expect(parseGatewayConfig({ runs: { durable: true }, sessions: { url: 'postgres://db/app' } }, base).warnings ?? []).toEqual([]);
  });

  it('a value that is not true or false, or an unknown key: refused naming the field and what it does', () => {
    const wrongType = configError(() => parseGatewayConfig({ runs: { durable: 'yes' } }, base));
    expect(wrongType.path).toBe('runs.durable');
    expect(wrongType.message).toContain('expected true or false');
    expect(wrongType.message).toContain('sealed with CODEMODE_SNAPSHOT_KEY');
    expect(configError(() => parseGatewayConfig({ runs: { durabel: true } }, base)).path).toBe('runs.durabel');
    expect(configError(() => parseGatewayConfig({ runs: true }, base)).path).toBe('runs');
  });

  it('runs.maxParked and runs.parkedInMemory: read as given (defaults spec 01\'s 64, so nothing changes unless raised); without runs.durable a warning says they do nothing', () => {
    const raised = parseGatewayConfig({ runs: { durable: true, maxParked: 10_000, parkedInMemory: 0 } }, base);
    expect(raised.runs).toEqual({ durable: true, maxParked: 10_000, parkedInMemory: 0 });
    expect(raised.warnings ?? []).toEqual([]);
    const plain = parseGatewayConfig({ runs: { maxParked: 100 } }, base);
    expect(plain.warnings?.[0]).toContain('runs.maxParked and runs.parkedInMemory apply to durable runs only');
  });

  it('runs.maxParked or runs.parkedInMemory out of range or not a whole number: refused naming the field, the bound and why', () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ maxParked: 0 }, 'runs.maxParked', 'must be at least 1'],
      [{ maxParked: MAX_MAX_PARKED + 1 }, 'runs.maxParked', `must be at most ${MAX_MAX_PARKED}`],
      [{ maxParked: 1.5 }, 'runs.maxParked', 'whole number'],
      [{ maxParked: 'many' }, 'runs.maxParked', 'how many runs may park in the session database'],
      [{ parkedInMemory: -1 }, 'runs.parkedInMemory', 'must be at least 0'],
      [{ parkedInMemory: MAX_SUSPENDED_RUNS + 1 }, 'runs.parkedInMemory', `must be at most ${MAX_SUSPENDED_RUNS}: a process holds no more waiting runs`],
    ];
    for (const [runs, path, message] of cases) {
      const error = configError(() => parseGatewayConfig({ runs: { durable: true, ...runs } }, base));
      expect(error.path).toBe(path);
      expect(error.message).toContain(message);
    }
  });

  it('a Gateway with runs.durable and no CODEMODE_SNAPSHOT_KEY (or a malformed one) does not start: a ConfigError naming runs.durable and how to make a key', async () => {
    const config = testConfig({ runs: { durable: true } });
    for (const env of [envOf(), envOf({ CODEMODE_SNAPSHOT_KEY: 'hunter2' })]) {
      const error = configError(() => new Gateway(config, loaded, { env }));
      expect(error.path).toBe('runs.durable');
      expect(error.message).toContain('openssl rand -base64 32');
      expect(error.message).not.toContain('hunter2');
    }
    await expect(createGateway({ config, env: envOf() })).rejects.toThrow(/runs\.durable: durable runs are sealed with a key of their own, and CODEMODE_SNAPSHOT_KEY is not set/);
  });

  it('with a key: the Gateway loads it (its id is logged at start); without runs.durable no key is asked for', async () => {
    const lines: string[] = [];
    const gateway = await createGateway({ config: testConfig({ runs: { durable: true } }), env: keyEnv, log: (line) => lines.push(line) });
    try {
      expect(gateway.snapshotKey?.id).toBe(loadSnapshotKey(keyEnv).id);
      expect(lines).toContain(`runs.durable: Gateway ${gateway.instanceId} seals parked runs with snapshot key ${gateway.snapshotKey?.id}`);
    } finally {
      await gateway.close();
    }
    const plain = new Gateway(testConfig(), loaded, { env: envOf() });
    try {
      expect(plain.snapshotKey).toBeUndefined();
    } finally {
      await plain.close();
    }
  });
});

describe('the Gateway instance id', () => {
  it('random at each start, of one shape; a value of another shape is not taken for one', async () => {
    const ids = new Set(Array.from({ length: 50 }, () => newGatewayInstanceId()));
    expect(ids.size).toBe(50);
    for (const id of ids) expect(isGatewayInstanceId(id)).toBe(true);
    for (const bad of ['', 'gw_', 'gw_short', `gw_${'a'.repeat(17)}`, 'xx_AAAAAAAAAAAAAAAA', 7, null]) expect(isGatewayInstanceId(bad)).toBe(false);
    const [a, b] = [new Gateway(testConfig(), loaded), new Gateway(testConfig(), loaded)];
    try {
      expect(isGatewayInstanceId(a.instanceId)).toBe(true);
      expect(a.instanceId).not.toBe(b.instanceId);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
