// The `sessions.path` config field: default beside the config file, ":memory:", errors that name the field.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configError } from '../config/testing.ts';
import { DEFAULT_SESSIONS_PATH, IN_MEMORY_SESSIONS_PATH, parseGatewayConfig } from '../config/load.ts';
import { Gateway } from '../gateway.ts';
import { testConfig } from '../tools/testing.ts';

const base = '/srv/playground';

describe('sessions.path', () => {
  it('on no sessions field: the database sits beside the config file at the default path', () => {
    expect(parseGatewayConfig({}, base).sessions).toEqual({ path: resolve(base, DEFAULT_SESSIONS_PATH) });
  });

  it('on a relative or absolute path: resolves a relative one against the config folder and keeps an absolute one', () => {
    expect(parseGatewayConfig({ sessions: { path: 'state/s.db' } }, base).sessions?.path).toBe('/srv/playground/state/s.db');
    expect(parseGatewayConfig({ sessions: { path: '/var/lib/s.db' } }, base).sessions?.path).toBe('/var/lib/s.db');
  });

  it('on ":memory:": keeps it as is', () => {
    expect(parseGatewayConfig({ sessions: { path: IN_MEMORY_SESSIONS_PATH } }, base).sessions?.path).toBe(IN_MEMORY_SESSIONS_PATH);
  });

  it('on a wrong type or an unknown key: fails naming the field', () => {
    expect(configError(() => parseGatewayConfig({ sessions: { path: 3 } }, base)).path).toBe('sessions.path');
    expect(configError(() => parseGatewayConfig({ sessions: { path: ' ' } }, base)).path).toBe('sessions.path');
    expect(configError(() => parseGatewayConfig({ sessions: { file: 'x.db' } }, base)).path).toBe('sessions.file');
  });

  it('on a path the Gateway cannot open: construction fails with a ConfigError naming sessions.path', () => {
    const dir = mkdtempSync(join(tmpdir(), 'codemode-badpath-'));
    try {
      const notAFolder = join(dir, 'plain-file');
      writeFileSync(notAFolder, 'x');
      const config = testConfig({ sessions: { path: join(notAFolder, 'codemode.db') } });
      const error = configError(() => new Gateway(config, { tools: [], plugins: [], pluginErrors: [] }));
      expect(error.path).toBe('sessions.path');
      expect(error.message).toContain('cannot open the session database');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
