// `codemode keys`: a key minted per client, only its SHA-256 in the config file, and the running server telling its holder apart.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { main } from './main.ts';
import { loadConfigFile } from '../config/load.ts';
import { checkRequest, exposureFor } from '../http/request-checks.ts';

function configFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'codemode-keys-')), 'codemode.config.json');
  writeFileSync(file, JSON.stringify({ tools: { codeMode: { enabled: true } } }, null, 2));
  return file;
}

async function cli(args: string[]): Promise<{ code: number; out: string[]; err: string }> {
  const out: string[] = [];
  let err = '';
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    err += String(chunk);
    return true;
  });
  try {
    return { code: await main(args, (line) => out.push(line)), out, err };
  } finally {
    spy.mockRestore();
  }
}

describe('codemode keys', () => {
  it('add prints the key once and writes only its SHA-256 (the previous file kept as .bak); the server then knows its holder as an owner of its own', async () => {
    const file = configFile();
    const added = await cli(['keys', 'add', 'ci-agent', '--config', file]);
    expect(added.code).toBe(0);
    const [key] = added.out;
    expect(key).toMatch(/^ck_[A-Za-z0-9_-]{43}$/);
    expect(added.err).toContain('server.clients.ci-agent');
    expect(added.err).toContain('Restart the server');
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(key);
    expect(JSON.parse(text).server.clients['ci-agent'].keySha256).toBe(createHash('sha256').update(key!).digest('hex'));
    expect(existsSync(`${file}.bak`)).toBe(true);

    // the config loads, and a request with the key is that client's
    const config = loadConfigFile(file);
    const exposure = exposureFor({ bindHost: '127.0.0.1', port: 3000, server: config.server, accessToken: undefined });
    const verdict = checkRequest(exposure, { headers: { host: '127.0.0.1:3000', authorization: `Bearer ${key}` } }, 'op_x');
    expect(verdict).toMatchObject({ ok: true, operator: false, owner: { id: 'client:ci-agent', kind: 'client' } });
  });

  it('list names the clients; add of a held name is refused; remove deletes one and its key stops opening anything', async () => {
    const file = configFile();
    const first = (await cli(['keys', 'add', 'a', '--config', file])).out[0]!;
    await cli(['keys', 'add', 'b', '--config', file]);
    expect((await cli(['keys', 'list', '--config', file])).out).toEqual(['a', 'b']);
    const again = await cli(['keys', 'add', 'a', '--config', file]);
    expect(again.code).toBe(2);
    expect(again.err).toContain('"a" already has a key');
    expect((await cli(['keys', 'remove', 'a', '--config', file])).code).toBe(0);
    expect((await cli(['keys', 'list', '--config', file])).out).toEqual(['b']);
    const exposure = exposureFor({ bindHost: '127.0.0.1', port: 3000, server: loadConfigFile(file).server, accessToken: undefined });
    expect(checkRequest(exposure, { headers: { host: '127.0.0.1:3000', authorization: `Bearer ${first}` } }, 'op_x')).toMatchObject({ ok: false, status: 401 });
  });

  it('a bad name or a missing argument is refused with what to write, and the file is left alone', async () => {
    const file = configFile();
    const before = readFileSync(file, 'utf8');
    const bad = await cli(['keys', 'add', 'has space', '--config', file]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('is not a client name');
    expect((await cli(['keys', 'add', '--config', file])).err).toContain('expected add NAME, list or remove NAME');
    expect((await cli(['keys', 'remove', 'nobody', '--config', file])).err).toContain('no client "nobody"');
    expect(readFileSync(file, 'utf8')).toBe(before);
  });
});
