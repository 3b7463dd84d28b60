// `codemode run --seed / --record / --replay`, in-process against the demo tools: a recorded cassette replays with its seed and answers.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from './main.ts';
import { DEMO_WORKSPACE } from '../tools/testing.ts';

async function cli(args: string[]) {
  const lines: string[] = [];
  const code = await main(args, (s) => lines.push(s));
  return { code, last: JSON.parse(lines.at(-1) ?? 'null') as Record<string, unknown> };
}

const dir = mkdtempSync(join(tmpdir(), 'codemode-replay-cli-'));
const config = join(dir, 'codemode.config.json');
writeFileSync(
  config,
  JSON.stringify({
    tools: { codeMode: { enabled: true, executor: 'quickjs' } },
    agents: { defaults: { model: 'demo/coder' }, list: [{ id: 'main' }] },
    plugins: { bundled: ['weather'] },
    workspace: DEMO_WORKSPACE,
  }),
);

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('codemode run: the replay lab flags', () => {
  it('on --record then --replay: the replay returns what the cassette answers, with its seed; another call fails with replay_mismatch', async () => {
    const cell = file('cell.js', 'const w = await weather_lookup({ city: "Oslo" });\nreturn { city: w.city, w, r: Math.random() }');
    const cassette = join(dir, 'oslo.cassette.json');
    const recorded = await cli(['run', cell, '--config', config, '--seed', '77', '--record', cassette]);
    expect(recorded.code).toBe(0);
    const saved = JSON.parse(readFileSync(cassette, 'utf8')) as { seed: number; calls: Array<{ tool: string; value: unknown }> };
    expect(saved.seed).toBe(77);
    expect(saved.calls.map((c) => c.tool)).toEqual(['weather_lookup']);

    // edit the recorded answer: the replay can only return it if the call was answered from the cassette
    saved.calls[0]!.value = { city: 'Replayed', edited: true };
    writeFileSync(cassette, JSON.stringify(saved));
    const replayed = await cli(['run', cell, '--config', config, '--replay', cassette]);
    expect(replayed.code).toBe(0);
    const value = replayed.last.value as { city: string; r: number };
    expect(value.city).toBe('Replayed');
    expect(value.r).toBe((recorded.last.value as { r: number }).r);

    const other = file('other.js', 'return await weather_lookup({ city: "Rome" })');
    const mismatch = await cli(['run', other, '--config', config, '--replay', cassette]);
    expect(mismatch.code).toBe(1);
    expect(mismatch.last).toMatchObject({ status: 'failed', code: 'replay_mismatch', error: expect.stringContaining('weather_lookup({"city":"Rome"})') });
  }, 60_000);

  it('on --record of a cell that reads the real clock (no --seed): the file holds its readings, and --replay returns them', async () => {
    const cell = file('clock.js', 'const a = Date.now();\nconst w = await weather_lookup({ city: "Oslo" });\nreturn { a, b: Date.now(), iso: new Date().toISOString(), city: w.city }');
    const cassette = join(dir, 'clock.cassette.json');
    const before = Date.now();
    const recorded = await cli(['run', cell, '--config', config, '--record', cassette]);
    expect(recorded.code).toBe(0);
    const saved = JSON.parse(readFileSync(cassette, 'utf8')) as { clock: { mode: string; startMs: number; runs: number[] } };
    expect(saved.clock.mode).toBe('real');
    expect(saved.clock.startMs).toBeGreaterThanOrEqual(before);
    expect(saved.clock.runs.filter((_n, i) => i % 2 === 1).reduce((x, y) => x + y, 0)).toBe(3);
    const replayed = await cli(['run', cell, '--config', config, '--replay', cassette]);
    expect(replayed.code).toBe(0);
    expect(replayed.last.value).toEqual(recorded.last.value);
  }, 60_000);

  it('on bad flags or a bad cassette file: exit 2 with a message, before a Gateway starts', async () => {
    const cell = file('c2.js', 'return 1');
    const notJson = file('bad.json', '{ nope');
    const wrong = file('wrong.json', JSON.stringify({ format: 'x' }));
    for (const args of [
      ['--seed', '-1'],
      ['--seed', '99999999999'],
      ['--replay', notJson],
      ['--replay', wrong],
      ['--replay', join(dir, 'missing.json')],
      ['--record', join(dir, 'a.json'), '--replay', wrong],
      // a device reads forever, a directory or a missing folder cannot take the file: said before anything runs
      ['--replay', '/dev/zero'],
      ['--record', dir],
      ['--record', join(dir, 'no-such-folder', 'a.json')],
    ]) {
      const lines: string[] = [];
      expect(await main(['run', cell, '--config', config, ...args], (s) => lines.push(s)), args.join(' ')).toBe(2);
      expect(lines, 'no cell ran').toEqual([]);
    }
    expect(await main(['run', '/dev/zero', '--config', config], () => undefined)).toBe(2);
    expect(await main(['run', cell, '--config', '/dev/zero'], () => undefined)).toBe(2);
  });
});
