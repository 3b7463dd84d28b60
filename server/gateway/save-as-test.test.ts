// Replay lab, part 4: "save as test" writes a cassette and a Vitest file; the file runs and passes, and fails once the recorded answer changes.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createGateway } from '../gateway.ts';
import { DEMO_WORKSPACE, REPO_ROOT } from '../tools/testing.ts';
import { expectCompleted, expectFailed } from '../testing.ts';

const run = promisify(execFile);

/** The generated test in a child Vitest (as CI would run it): its exit code and output. */
async function vitest(file: string, configPath: string): Promise<{ code: number; out: string }> {
  try {
    const r = await run(process.execPath, [join(REPO_ROOT, 'node_modules/vitest/vitest.mjs'), 'run', file], {
      cwd: REPO_ROOT,
      env: { ...process.env, CODEMODE_CONFIG: configPath, VITEST: undefined, VITEST_POOL_ID: undefined, VITEST_WORKER_ID: undefined, NODE_OPTIONS: undefined },
      encoding: 'utf8',
    });
    return { code: 0, out: r.stdout + r.stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: err.code ?? 1, out: `${err.stdout ?? ''}${err.stderr ?? ''}` };
  }
}

describe('replay lab: save as test', () => {
  it('on a completed run: the generated Vitest file passes, and fails when the recorded answer changes the value', async () => {
    const configPath = join(mkdtempSync(join(tmpdir(), 'codemode-save-test-')), 'codemode.config.json');
    writeFileSync(
      configPath,
      JSON.stringify({
        tools: { codeMode: { enabled: true, executor: 'quickjs' } },
        agents: { defaults: { model: 'demo/coder' }, list: [{ id: 'main' }] },
        plugins: { bundled: ['weather'] },
        workspace: DEMO_WORKSPACE,
      }),
    );
    const gw = await createGateway({ configPath, argv: [] });
    const written: string[] = [];
    try {
      const t = gw.prepareTurn({});
      const r = expectCompleted(await gw.exec(t.agentRunId, { code: 'const w = await weather_lookup({ city: "Oslo" });\nreturn { city: w.city, r: Math.random() }' }));
      const saved = gw.saveAsTest(r.telemetry.runId!)!;
      expect(saved.test.text).toContain(JSON.stringify((r.value as { r: number }).r));

      const cassettePath = join(REPO_ROOT, 'replays', saved.cassette.fileName);
      const testPath = join(REPO_ROOT, 'replays', saved.test.fileName);
      writeFileSync(cassettePath, saved.cassette.text);
      writeFileSync(testPath, saved.test.text);
      written.push(cassettePath, testPath);

      const passing = await vitest(testPath, configPath);
      expect(passing.code, passing.out).toBe(0);
      expect(passing.out).toContain('1 passed');

      // the cassette now answers the tool differently: the replayed value no longer matches the file's
      const cassette = JSON.parse(readFileSync(cassettePath, 'utf8')) as { calls: Array<{ value: unknown }> };
      cassette.calls[0]!.value = { city: 'Bergen' };
      writeFileSync(cassettePath, JSON.stringify(cassette));
      const failing = await vitest(testPath, configPath);
      expect(failing.code, failing.out).not.toBe(0);
      expect(failing.out).toContain('Bergen');

      // a failed run has no value to assert
      const f = expectFailed(await gw.exec(t.agentRunId, { code: 'throw new Error("x")' }));
      expect(() => gw.saveAsTest(f.telemetry.runId!)).toThrow('save as test needs a completed run');
    } finally {
      for (const f of written) rmSync(f, { force: true });
      await gw.close();
    }
  }, 180_000);
});
