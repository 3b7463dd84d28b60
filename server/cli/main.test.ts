// The codemode command line, run in-process against the shipped config and a roomy copy of the demo, and as a child process.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { main } from './main.ts';
import { DEMO_WORKSPACE, REPO_ROOT } from '../tools/testing.ts';
import { SLOW_START_DELAY_MS, slowStartServer } from '../tools/mcp/testing.ts';

// Every describe is concurrent: each command boots its own Gateway and mostly waits (MCP servers, worker
// threads), so the file takes about as long as its slowest test instead of the sum.
async function cli(args: string[]) {
  const lines: string[] = [];
  const code = await main(args, (s) => lines.push(s));
  return { code, text: lines.join('\n'), lines };
}

const shipped = join(REPO_ROOT, 'codemode.config.json');

/**
 * The demo tools with the default budget and no session file: runs that must wait park with yield_control(),
 * so no result depends on how fast a loaded machine gets through a cell.
 */
const roomy = (() => {
  const file = join(mkdtempSync(join(tmpdir(), 'codemode-cli-config-')), 'codemode.config.json');
  const config = {
    tools: { codeMode: { enabled: true, executor: 'quickjs' } },
    agents: { defaults: { model: 'demo/coder' }, list: [{ id: 'main' }] },
    plugins: { bundled: ['llm-task', 'weather', 'notes', 'guard'] },
    workspace: DEMO_WORKSPACE,
  };
  writeFileSync(file, JSON.stringify(config));
  return file;
})();

function cellFile(code: string, ext = '.js'): string {
  const dir = mkdtempSync(join(tmpdir(), 'codemode-cli-'));
  const file = join(dir, `cell${ext}`);
  writeFileSync(file, code);
  return file;
}

describe.concurrent('codemode surface', () => {
  it('on the shipped config: prints exec, wait and only the direct-only tool', async () => {
    const { code, text } = await cli(['surface', '--config', shipped]);
    expect(code).toBe(0);
    expect(text).toContain('code mode: active');
    expect(text).toContain('model-visible tools (3): exec, wait, image_generate');
    expect(text).toContain('weather_lookup(input: { city: string })');
  });

  it('on an agent with code mode off: prints every tool unchanged', async () => {
    const { text } = await cli(['surface', '--config', shipped, '--agent', 'direct']);
    expect(text).toContain('code mode: inactive');
    expect(text).toMatch(/model-visible tools \(\d+\): read, grep, web_search/);
    expect(text).toContain('weather.lookup');
  });
});

describe.concurrent('codemode catalog', () => {
  it('on the shipped config: prints sources, projected names and declarations', async () => {
    const { code, text } = await cli(['catalog', '--config', shipped]);
    expect(code).toBe(0);
    expect(text).toMatch(/bundled_plugin\s+llm_task\s+llm-task/);
    expect(text).toMatch(/external_plugin\s+tool_2fa\s+2fa/);
    expect(text).toMatch(/external_plugin\s+delete_[0-9a-z]{6}\s+delete/);
    expect(text).toContain('declare function weather_lookup(');
  });

  it('on the research agent: shows the denied shell exec with its rule', async () => {
    const { text } = await cli(['catalog', '--config', shipped, '--agent', 'research', '--json']);
    const view = JSON.parse(text) as { tools: Array<{ name: string; deniedBy?: string }> };
    expect(view.tools.find((t) => t.name === 'exec')?.deniedBy).toMatch(/deny/);
  });
});

describe.concurrent('codemode run', () => {
  it('on a cell that parks with a call pending: prints waiting with snapshot sizes, then completed, exit 0', async () => {
    const file = cellFile('const s = sleep({ ms: 20 });\nawait yield_control("checkpoint");\nconsole.log("after");\nreturn (await s).sleptMs >= 20');
    const { code, lines } = await cli(['run', file, '--config', roomy]);
    const results = lines.map((l) => JSON.parse(l));
    expect(results[0]).toMatchObject({ status: 'waiting', reason: 'yield', pendingToolCalls: [{ tool: 'sleep' }] });
    expect(results[0].telemetry.snapshot.storedBytes).toBeGreaterThan(0);
    expect(results.at(-1)).toMatchObject({ status: 'completed', value: true });
    expect(code).toBe(0);
  });

  it('on --tokens: after the cell, one JSON line with its token meter (code mode vs direct, marked an estimate)', async () => {
    const file = cellFile('const a = await sleep({ ms: 1 }); const b = await sleep({ ms: 2 });\nreturn [a, b]');
    const { code, lines } = await cli(['run', file, '--config', roomy, '--tokens']);
    expect(code).toBe(0);
    const last = JSON.parse(lines.at(-1)!) as {
      tokens: Record<string, unknown> & { codeMode: { total: number; resent: number }; direct: { definitions: number; calls: number; resent: number; total: number }; directTurns: number[] };
    };
    const result = JSON.parse(lines.at(-2)!) as { status: string; telemetry: { runId: string } };
    expect(result.status).toBe('completed');
    expect(last.tokens).toMatchObject({ runId: result.telemetry.runId, estimate: true, encoding: 'o200k_base', direct: { calls: 2 } });
    expect(last.tokens.codeMode.total).toBeGreaterThan(0);
    expect(last.tokens.direct.total).toBeGreaterThan(0);
    // the same meter as the page's: the second direct turn re-sends the definitions and the first call
    const [turn1 = 0, turn2 = 0] = last.tokens.directTurns;
    expect(turn2).toBeGreaterThan(turn1);
    expect(last.tokens.direct.resent).toBe(turn1);
    expect(last.tokens.direct.total).toBe(turn1 + turn2);
    expect(last.tokens.codeMode.resent).toBe(0);
    // without the flag: results only
    const plain = await cli(['run', file, '--config', roomy]);
    expect(plain.lines.every((l) => !('tokens' in (JSON.parse(l) as object)))).toBe(true);
  });

  it('on --otlp FILE: writes every cell\'s trace as one OTLP/JSON request (a trace per cell)', async () => {
    const first = cellFile('return (await sleep({ ms: 1 })).sleptMs >= 1');
    const second = cellFile('return 2');
    const out = join(mkdtempSync(join(tmpdir(), 'codemode-cli-otlp-')), 'trace.json');
    const { code, lines } = await cli(['run', first, second, '--config', roomy, '--otlp', out]);
    expect(code).toBe(0);
    const runIds = lines.map((l) => (JSON.parse(l) as { telemetry: { runId: string } }).telemetry.runId);
    const request = JSON.parse(readFileSync(out, 'utf8')) as {
      resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ traceId: string; name: string; parentSpanId?: string; attributes: Array<{ key: string; value: { stringValue?: string } }> }> }> }>;
    };
    const spans = request.resourceSpans.flatMap((r) => r.scopeSpans).flatMap((s) => s.spans);
    const roots = spans.filter((s) => s.name === 'codemode.run');
    expect(roots.map((r) => r.attributes.find((a) => a.key === 'codemode.run_id')?.value.stringValue)).toEqual(runIds);
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(2);
    expect(spans.some((s) => s.name === 'codemode.call sleep')).toBe(true);
  });

  it('on a failing cell: exits 1', async () => {
    const file = cellFile('throw new Error("nope")');
    const { code, lines } = await cli(['run', file, '--config', roomy]);
    expect(JSON.parse(lines[0]!)).toMatchObject({ status: 'failed' });
    expect(code).toBe(1);
  });

  it('on --headless: the turn is headless, so results.save is refused (without the flag it works)', async () => {
    const file = cellFile('try { await results.save(1); return "saved" } catch (e) { return e.code + ": " + e.message }');
    const headless = await cli(['run', file, '--config', roomy, '--headless']);
    expect(JSON.parse(headless.lines.at(-1)!)).toMatchObject({ status: 'completed', value: expect.stringMatching(/^invalid_input: results.save\/load\/delete are unavailable in headless execution/) });
    const interactive = await cli(['run', file, '--config', roomy]);
    expect(JSON.parse(interactive.lines.at(-1)!)).toMatchObject({ status: 'completed', value: 'saved' });
  });

  it('on a .ts file: runs it as TypeScript', async () => {
    const file = cellFile('const n: number = 41;\nn + 1', '.ts');
    const { lines } = await cli(['run', file, '--config', roomy]);
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ status: 'completed', value: 42 });
  });

  it('on a shell exec without --approve: the approval is denied and the guest sees it', async () => {
    const file = cellFile('try { await exec({ command: "ls" }); return "ran" } catch (e) { return e.code }');
    const { lines } = await cli(['run', file, '--config', roomy]);
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ status: 'completed', value: 'approval_denied' });
  });

  it('on the same cells with --executor node, quickjs and quickjs-emscripten: gives the same results', async () => {
    const cells = [
      'const w = await weather_lookup({ city: "Oslo" });\nconst [a, b] = await Promise.all([read({ path: "README.md" }), grep({ pattern: "TODO" })]);\nreturn { city: w.city, bytes: a.bytes, matches: b.matches.length }',
      'try { await web_fetch({ url: "https://nowhere.example/" }) } catch (e) { return e.code }',
      'const s = sleep({ ms: 20 });\nawait yield_control("checkpoint");\nconsole.log("resumed");\nreturn (await s).sleptMs >= 20',
      'await store("k", 1); return await load("k")',
    ];
    for (const code of cells) {
      const file = cellFile(code);
      const kinds = ['node', 'quickjs', 'quickjs-emscripten'];
      const runs = await Promise.all(kinds.map((executor) => cli(['run', file, '--config', roomy, '--executor', executor])));
      const finals = runs.map((r) => JSON.parse(r.lines.at(-1)!));
      expect(finals.map((f) => f.telemetry.executor)).toEqual(kinds);
      // documented differences live in telemetry (snapshot bytes vs an estimate); status, value and output agree
      const comparable = finals.map((f) => ({ status: f.status, value: f.value, output: f.output }));
      expect(comparable[1]).toEqual(comparable[0]);
      expect(comparable[2]).toEqual(comparable[0]);
      expect(runs.map((r) => r.code)).toEqual([runs[0]!.code, runs[0]!.code, runs[0]!.code]);
    }
  });

  it('on --executor all: one JSON line per executor, each its own run, with the comparison fields', async () => {
    const file = cellFile('const w = await weather_lookup({ city: "Oslo" });\nawait yield_control("checkpoint");\nreturn w.city');
    const { code, lines } = await cli(['run', file, '--config', roomy, '--executor', 'all']);
    expect(code).toBe(0);
    const rows = lines.map((l) => JSON.parse(l));
    expect(rows.map((r) => r.executor)).toEqual(['node', 'quickjs', 'quickjs-emscripten']);
    expect(new Set(rows.map((r) => r.runId)).size).toBe(3);
    for (const r of rows) {
      expect(r).toMatchObject({ status: 'completed', valueJson: '"Oslo"', valueDiffers: false, calls: 2, nestedCalls: 2 });
      expect(r.durationMs).toBeGreaterThan(0);
      expect(r.nestedMs).toBeGreaterThanOrEqual(0);
    }
    // createGateway warms the configured executor (quickjs); the others start for their row
    expect(rows.map((r) => r.start)).toEqual(['cold', 'warm', 'cold']);
    // stored snapshot bytes for quickjs, a live estimate for the other two
    expect(rows[1].parked).toMatchObject({ kind: 'snapshot' });
    expect(rows[1].parked.storedBytes).toBeGreaterThan(0);
    for (const i of [0, 2]) {
      expect(rows[i].parked).toMatchObject({ kind: 'live-estimate' });
      expect(rows[i].parked.bytes).toBeGreaterThan(0);
    }
  });

  it('on a cell whose value differs per executor under --executor all: marks the rows that differ', async () => {
    const file = cellFile('try { (function f() { f() })() } catch (e) { return e.name + ": " + e.message }');
    const { code, lines } = await cli(['run', file, '--config', roomy, '--executor', 'all']);
    expect(code).toBe(0);
    const rows = lines.map((l) => JSON.parse(l));
    // engine difference: a RangeError everywhere, but Bellard QuickJS (quickjs-emscripten) words it its own way
    expect(rows.map((r) => [r.executor, r.valueJson, r.valueDiffers])).toEqual([
      ['node', '"RangeError: Maximum call stack size exceeded"', false],
      ['quickjs', '"RangeError: Maximum call stack size exceeded"', false],
      ['quickjs-emscripten', '"RangeError: stack overflow"', true],
    ]);
  });

  it('on bad arguments: exits 2 with usage', async () => {
    expect((await cli(['run'])).code).toBe(2);
    expect((await cli(['frobnicate'])).code).toBe(2);
    expect((await cli(['run', 'x.js', '--executor', 'v8'])).code).toBe(2);
    expect((await cli(['run', join(tmpdir(), 'codemode-no-such-cell.js')])).code).toBe(2);
  });
});

describe.concurrent('codemode with an MCP server that is slow to start', () => {
  // a config whose only MCP server leaves initialize unanswered for SLOW_START_DELAY_MS
  function slowMcpConfig(): string {
    const dir = mkdtempSync(join(tmpdir(), 'codemode-cli-mcp-'));
    const file = join(dir, 'codemode.config.json');
    const config = {
      tools: { codeMode: { enabled: true, executor: 'quickjs' } },
      agents: { defaults: { model: 'demo/coder' }, list: [{ id: 'main' }] },
      mcp: { servers: { slow: slowStartServer() } },
      workspace: DEMO_WORKSPACE,
    };
    writeFileSync(file, JSON.stringify(config));
    return file;
  }

  it('on run: the first cell calls the server (the command waits for its first connection attempt)', async () => {
    const file = cellFile('const keys = Object.keys(MCP.slow);\nconst r = await MCP.slow.ping({ note: "first cell" });\nreturn { keys, text: r.content[0].text }');
    const { code, lines } = await cli(['run', file, '--config', slowMcpConfig()]);
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ status: 'completed', value: { keys: ['ping', '$api'], text: `pong after ${SLOW_START_DELAY_MS} ms: first cell` } });
    expect(code).toBe(0);
  });

  it('on catalog: lists the server tool by its namespace path', async () => {
    const { code, text } = await cli(['catalog', '--config', slowMcpConfig()]);
    expect(code).toBe(0);
    expect(text).toMatch(/mcp\s+MCP\.slow\.ping\s+ping/);
  });
});

describe.concurrent('codemode catalog with an OpenAPI source', () => {
  it('labels its tools "openapi" and prints their declarations with the source\'s named types', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'codemode-cli-openapi-'));
    const file = join(dir, 'codemode.config.json');
    const config = {
      tools: { codeMode: { enabled: true, executor: 'quickjs' } },
      agents: { defaults: { model: 'demo/coder' }, list: [{ id: 'main' }] },
      sources: { openapi: { inventory: { document: join(REPO_ROOT, 'demo/openapi/inventory.yaml'), baseUrl: 'http://127.0.0.1:4011' } } },
      workspace: DEMO_WORKSPACE,
    };
    writeFileSync(file, JSON.stringify(config));
    const { code, text } = await cli(['catalog', '--config', file]);
    expect(code).toBe(0);
    expect(text).toMatch(/^openapi\s+listItems\s+listItems\s+network$/m);
    expect(text).toContain('declare function createItem(input: {');
    expect(text).toContain('body: inventory.NewItem;');
    expect(text).toContain('// openapi/inventory.d.ts\n// OpenAPI source "inventory": its named schemas, referred to as inventory.<Name> by its tools.\ndeclare namespace inventory {\n  type Category = "tools" | "parts" | "supplies";');
  });
});

describe('codemode with tool sources that fail to load', () => {
  // one OpenAPI document that does not exist and one MCP server whose process exits at once
  function brokenSourcesConfig(codeMode: boolean): string {
    const dir = mkdtempSync(join(tmpdir(), 'codemode-cli-broken-'));
    const file = join(dir, 'codemode.config.json');
    const config = {
      tools: { codeMode: { enabled: codeMode, executor: 'quickjs' } },
      agents: { defaults: { model: 'demo/coder' }, list: [{ id: 'main' }] },
      plugins: { bundled: ['weather'] },
      mcp: { servers: { gone: { command: process.execPath, args: ['-e', 'process.exit(3)'] } } },
      sources: { openapi: { petstore: { document: 'missing/petstore.yaml' } } },
      workspace: DEMO_WORKSPACE,
    };
    writeFileSync(file, JSON.stringify(config));
    return file;
  }

  async function withStderr(args: string[]) {
    const err: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      err.push(String(chunk));
      return true;
    });
    try {
      return { ...(await cli(args)), stderr: err.join('') };
    } finally {
      spy.mockRestore();
    }
  }

  it('on catalog, surface, run and test-plan: each failed source is one stderr line with its reason; catalog exits 0 with the rest', async () => {
    const config = brokenSourcesConfig(true);
    const cell = cellFile('return await weather_lookup({ city: "Oslo" }).then((w) => w.city)');
    for (const args of [['catalog'], ['surface'], ['run', cell], ['test-plan']]) {
      const { code, text, stderr } = await withStderr([...args, '--config', args[0] === 'test-plan' ? brokenSourcesConfig(false) : config]);
      expect(stderr, args[0]).toMatch(/^openapi source petstore: failed: OpenAPI source "petstore": cannot read .*missing\/petstore\.yaml \(ENOENT\)/m);
      expect(stderr, args[0]).toMatch(/^mcp server gone: failed: \S.*$/m);
      if (args[0] === 'catalog') {
        expect(code).toBe(0);
        expect(text).toMatch(/bundled_plugin\s+weather_lookup/);
      }
      if (args[0] === 'run') expect(code).toBe(0);
    }
  }, 120_000);
});

describe.concurrent('the codemode bin, run as a child process', () => {
  const run = promisify(execFile);

  /**
   * The layout `npm install` and `npx` make: node_modules/.bin/codemode links to the package's bin, and the
   * package folder itself may be a link (npx, npm link). Node runs the link's target, so a guard on the
   * script path never saw bin/codemode.mjs and the command printed nothing.
   */
  function linkedBin(): string {
    const dir = mkdtempSync(join(tmpdir(), 'codemode-bin-'));
    mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
    symlinkSync(REPO_ROOT, join(dir, 'node_modules', 'code-mode-playground'));
    const bin = join(dir, 'node_modules', '.bin', 'codemode');
    symlinkSync('../code-mode-playground/bin/codemode.mjs', bin);
    return bin;
  }

  it('through a node_modules/.bin link: surface, catalog and run print their output and exit codes', async () => {
    const bin = linkedBin();
    const completes = cellFile('const w = await weather_lookup({ city: "Oslo" });\nreturn w.city');
    const fails = cellFile('throw new Error("nope")');
    const opts = { cwd: REPO_ROOT, encoding: 'utf8' as const };
    const exitOf = (p: Promise<{ stdout: string }>) =>
      p.then(
        (r) => ({ code: 0, stdout: r.stdout }),
        (e: { code?: number; stdout?: string }) => ({ code: e.code, stdout: String(e.stdout) }),
      );
    // all at once: each process boots its own Gateway, which is what the command costs
    const [surface, catalog, completed, failed] = await Promise.all([
      exitOf(run(bin, ['surface'], opts)),
      exitOf(run(bin, ['catalog'], opts)),
      exitOf(run(bin, ['run', completes, '--config', roomy], opts)),
      exitOf(run(bin, ['run', fails, '--config', roomy], opts)),
    ]);
    expect(surface).toMatchObject({ code: 0, stdout: expect.stringContaining('model-visible tools (3): exec, wait, image_generate') });
    expect(catalog).toMatchObject({ code: 0, stdout: expect.stringMatching(/mcp\s+MCP\.demo\.echo\s+echo/) });
    expect(completed.code).toBe(0);
    expect(JSON.parse(completed.stdout.trim().split('\n').at(-1)!)).toMatchObject({ status: 'completed', value: 'Oslo' });
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stdout.trim())).toMatchObject({ status: 'failed', error: expect.stringContaining('nope') });
    // four processes each booting tsx and a Gateway: on a loaded 2-core machine that alone can pass 30 s
  }, 120_000);
});
