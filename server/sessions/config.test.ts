// The `sessions.path` and `sessions.url` config fields: default beside the config file, ":memory:", a PostgreSQL URL, errors that name the field.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configError } from '../config/testing.ts';
import { parseGatewayConfig } from '../config/load.ts';
import { DEFAULT_SESSIONS_PATH, IN_MEMORY_SESSIONS_PATH } from '../config/sessions.ts';
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

  it('on a postgres URL: kept as is (nothing is resolved against the config folder), and no SQLite path is set', () => {
    const url = 'postgres://codemode:secret@db.internal:5432/playground?sslmode=require';
    expect(parseGatewayConfig({ sessions: { url } }, base).sessions).toEqual({ url });
    expect(parseGatewayConfig({ sessions: { url: 'postgresql://localhost/app' } }, base).sessions).toEqual({ url: 'postgresql://localhost/app' });
    expect(parseGatewayConfig({ sessions: { url: 'postgres:///app?host=/var/run/postgresql' } }, base).sessions).toEqual({ url: 'postgres:///app?host=/var/run/postgresql' });
  });

  it('on a url that is not a postgres URL, or both path and url: fails naming the field and never repeats the password', () => {
    const wrongScheme = configError(() => parseGatewayConfig({ sessions: { url: 'mysql://root:hunter2@db/app' } }, base));
    expect(wrongScheme.path).toBe('sessions.url');
    expect(wrongScheme.message).toContain('uses the "mysql" scheme; write a postgres:// (or postgresql://) URL');
    expect(wrongScheme.message).not.toContain('hunter2');
    const notUrl = configError(() => parseGatewayConfig({ sessions: { url: 'hunter2 at db.internal' } }, base));
    expect(notUrl.path).toBe('sessions.url');
    expect(notUrl.message).toContain('is not a URL');
    expect(notUrl.message).not.toContain('hunter2');
    expect(configError(() => parseGatewayConfig({ sessions: { url: 'postgres:///app' } }, base)).message).toContain('names no host');
    expect(configError(() => parseGatewayConfig({ sessions: { url: 5432 } }, base)).path).toBe('sessions.url');
    const both = configError(() => parseGatewayConfig({ sessions: { path: 'a.db', url: 'postgres://db/app' } }, base));
    expect(both.path).toBe('sessions');
    expect(both.message).toContain('names both path (SQLite) and url (PostgreSQL)');
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
