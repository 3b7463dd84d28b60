// The `codemode` command line: surface, catalog, run and mcp (the MCP server on stdio), each against a real Gateway from the config; keys, on the config file alone.
import { writeFileSync } from 'node:fs';
import { readTextFile, unwritableFileProblem } from '../util/files.ts';
import { parseArgs } from 'node:util';
import { createGateway, type Gateway } from '../gateway.ts';
import type { CatalogFace, LabFace, ModelFace, RunsFace, SourcesFace, TurnRequest } from '../gateway-types.ts';
import type { ExecutorKind } from '../config/types.ts';
import type { CodeModeResult } from '../runs/types.ts';
import { ConfigError } from '../errors.ts';
import { serveMcpStdio } from './mcp.ts';
import { KEYS_USAGE, runKeys } from './keys.ts';
import { resolveConfigPath } from '../config/load.ts';
import { parseCassette, type Cassette } from '../runs/cassette.ts';
import { EXECUTOR_KINDS } from '../config/schema.ts';
import { runTestPlan } from '../testplan/run.ts';
import { reportJunit, reportText } from '../testplan/format.ts';

const USAGE = `usage:
  codemode surface [--agent A] [--model M] [--disable-tools] [--json]
      what a model sees: exec, wait and direct-only tools (or every tool when code mode is off)
  codemode catalog [--agent A] [--model M] [--json]
      the hidden catalog: source, callable name, exact name, flags, declaration
  codemode run FILE [FILE ...] [--language typescript] [--executor quickjs|node|quickjs-emscripten|all] [--agent A]
                    [--session S] [--typecheck] [--approve] [--headless] [--tokens] [--otlp FILE]
                    [--seed N] [--record CASSETTE | --replay CASSETTE]
      runs each file as a cell of one turn, in order; calls wait until each settles and prints every
      exec/wait result as one JSON line; exits 0 when every cell completed, 1 otherwise.
      --otlp FILE: writes the cells' traces to FILE as OTLP/JSON (one ExportTraceServiceRequest, a trace per cell).
      Approvals are denied unless --approve is given. A .ts file is TypeScript unless --language says.
      --headless: no model reads the results, so cells get no results.* or store/load and no automatic references,
      and make at most tools.codeMode.maxHeadlessToolCalls tool calls together (default 1000).
      --tokens: after each cell, one more JSON line {"tokens": ...}: the token meter, an estimate in the
      o200k_base encoding of code mode's cost against direct tool calling for the same work, every model
      turn re-sending the whole context so far (turn k = definitions + all calls and results up to k).
      --executor all: each cell runs on every executor, each in its own run, and prints one JSON line per
      executor (status, value, duration, nested-call cost, parked bytes, cold or warm start).
      --seed N: Math.random derives from N (0..4294967295), and the cells read N's logical clock (an instant
      of 2025 that moves only when a timer fires) instead of the real one, so a run repeats.
      --record FILE: write the cell's tool calls, clock readings, seed and outcome to FILE as a cassette (one cell).
      --replay FILE: answer every tool call and clock reading from that cassette (no tool runs) with its seed
      (one cell); a call it does not hold, or a clock reading past the recorded ones, fails with replay_mismatch.
  codemode mcp [--agent A]
      serves the agent's model surface (exec, wait, direct-only tools) as an MCP server on stdin/stdout, one
      session = one turn; logs go to stderr. Approvals are decided in a playground's approvals panel only
      when one serves this Gateway; here they are denied unless --approve is given.
  codemode test-plan [--agent A] [--json | --junit]
      runs the spec's 16-step E2E plan against the loaded config (its tools, plugins, MCP servers, OpenAPI
      sources) and prints each step's verdict; steps the catalog cannot exercise say "not applicable: add X".
      --json prints the report, --junit JUnit XML for CI; exits 0 when no step failed, 1 otherwise.
${KEYS_USAGE}
common: --config FILE (default: $CODEMODE_CONFIG or ./codemode.config.json)`;

export async function main(argv: string[], out: (s: string) => void = (s) => process.stdout.write(s + '\n')): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    out(USAGE);
    return command ? 0 : 2;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      allowPositionals: true,
      options: {
        config: { type: 'string' },
        agent: { type: 'string' },
        model: { type: 'string' },
        session: { type: 'string' },
        language: { type: 'string' },
        executor: { type: 'string' },
        typecheck: { type: 'boolean' },
        approve: { type: 'boolean' },
        headless: { type: 'boolean' },
        tokens: { type: 'boolean' },
        otlp: { type: 'string' },
        json: { type: 'boolean' },
        junit: { type: 'boolean' },
        seed: { type: 'string' },
        record: { type: 'string' },
        replay: { type: 'string' },
        'disable-tools': { type: 'boolean' },
      },
    });
  } catch (err) {
    process.stderr.write(`codemode: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (command === 'keys') {
    // the config file only: no Gateway starts
    let file: string;
    try {
      file = resolveConfigPath({ argv: values.config ? ['--config', values.config] : [], env: process.env, cwd: process.cwd() });
    } catch (err) {
      process.stderr.write(`codemode keys: ${(err as Error).message}\n`);
      return 2;
    }
    return runKeys(file, positionals, { out, err: (line) => process.stderr.write(`${line}\n`) });
  }
  if (!['surface', 'catalog', 'run', 'mcp', 'test-plan'].includes(command)) {
    process.stderr.write(`codemode: unknown command "${command}"\n${USAGE}\n`);
    return 2;
  }
  if (values.language !== undefined && values.language !== 'javascript' && values.language !== 'typescript') {
    process.stderr.write(`codemode: --language must be javascript or typescript, got "${values.language}"\n`);
    return 2;
  }
  if (values.executor !== undefined && values.executor !== 'all' && !(EXECUTOR_KINDS as readonly string[]).includes(values.executor)) {
    process.stderr.write(`codemode: --executor must be ${EXECUTOR_KINDS.join(', ')} or all, got "${values.executor}"\n`);
    return 2;
  }
  // the cell files are checked before a Gateway (and its MCP servers) starts
  const cells: CellInput[] = [];
  const lab = command === 'run' ? replayLabOptions(values, positionals.length) : {};
  if ('error' in lab) {
    process.stderr.write(`codemode run: ${lab.error}\n`);
    return 2;
  }
  if (command === 'run') {
    if (positionals.length === 0) {
      process.stderr.write('codemode run: name the cell file, e.g. codemode run cell.js\n');
      return 2;
    }
    for (const file of positionals) {
      let code: string;
      try {
        code = readTextFile(file, MAX_CELL_FILE_BYTES);
      } catch (err) {
        process.stderr.write(`codemode run: cannot read ${file}: ${(err as Error).message}\n`);
        return 2;
      }
      const language = (values.language ?? (file.endsWith('.ts') ? 'typescript' : 'javascript')) as 'javascript' | 'typescript';
      cells.push({ code, language, typecheck: Boolean(values.typecheck) });
    }
  }
  const otlpProblem = values.otlp !== undefined ? unwritableFileProblem(values.otlp) : undefined;
  if (otlpProblem) {
    process.stderr.write(`codemode run: --otlp: ${otlpProblem}\n`);
    return 2;
  }
  // stdout is the MCP channel: whatever the Gateway or a plugin would print there goes to stderr instead
  if (command === 'mcp') keepStdoutForProtocol();
  let gw: Gateway;
  try {
    gw = await createGateway({
      ...(values.config ? { configPath: values.config } : {}),
      argv: [],
      env: process.env,
      ...(command === 'mcp' ? { log: (line: string) => process.stderr.write(`[gateway] ${line}\n`) } : {}),
    });
  } catch (err) {
    process.stderr.write(`codemode: ${err instanceof ConfigError ? 'invalid config: ' : ''}${(err as Error).message}\n`);
    return 2;
  }
  try {
    // the Gateway starts without waiting for MCP; a command is one turn, so it waits like the API's turn start
    await gw.mcpReady();
    if (command !== 'mcp') reportSourceFailures(gw);
    const req = {
      ...(values.agent ? { agentId: values.agent } : {}),
      ...(values.model ? { model: values.model } : {}),
      ...(values['disable-tools'] ? { disableTools: true } : {}),
      ...(values.session ? { sessionId: values.session } : {}),
      ...(values.headless ? { headless: true } : {}),
    };
    if (command === 'mcp') return await serveMcpStdio(gw, { ...(values.agent ? { agentId: values.agent } : {}), approve: Boolean(values.approve) });
    if (command === 'test-plan') {
      const report = await runTestPlan(gw, values.agent ? { agentId: values.agent } : {});
      out(values.junit ? reportJunit(report) : values.json ? JSON.stringify(report, null, 2) : reportText(report));
      return report.summary.fail === 0 ? 0 : 1;
    }
    if (command === 'surface') return printSurface(gw, req, Boolean(values.json), out);
    if (command === 'catalog') return printCatalog(gw, req, Boolean(values.json), out);
    return await runCells(gw, req, cells, { executor: values.executor as ExecutorKind | 'all' | undefined, approve: Boolean(values.approve), tokens: Boolean(values.tokens), otlpFile: values.otlp, ...lab }, out);
  } catch (err) {
    process.stderr.write(`codemode: ${(err as Error).message}\n`);
    return 2;
  } finally {
    await gw.close();
  }
}

/**
 * One stderr line per tool source that did not load (`openapi source NAME: failed: REASON`, `mcp server NAME: failed:
 * REASON (retrying)`): the command goes on with the rest, but a catalog without them must not look complete. Called
 * after the first attempts settled, so a source that is not connected failed (an MCP server may be retrying by then).
 */
export function reportSourceFailures(gw: Pick<SourcesFace, 'sources'>, err: (s: string) => void = (s) => process.stderr.write(s + '\n')): void {
  for (const source of gw.sources()) {
    if (source.state === 'connected') continue;
    const what = source.kind === 'openapi' ? 'openapi source' : 'mcp server';
    const retrying = source.kind !== 'openapi' && source.state !== 'failed' ? ' (retrying)' : '';
    err(`${what} ${source.name}: ${source.error ? `failed: ${source.error}` : source.state}${retrying}`);
  }
}

function printSurface(gw: Pick<CatalogFace, 'surface'>, req: TurnRequest, json: boolean, out: (s: string) => void): number {
  const s = gw.surface(req);
  if (json) {
    out(JSON.stringify(s, null, 2));
    return 0;
  }
  out(`code mode: ${s.codeMode ? 'active' : 'inactive'} (${s.reason})`);
  out(`model-visible tools (${s.tools.length}): ${s.tools.map((t) => t.name).join(', ')}`);
  for (const t of s.tools) {
    out(`\n## ${t.name}`);
    out(t.description);
    out(`input schema: ${JSON.stringify(t.inputSchema)}`);
  }
  return 0;
}

function printCatalog(gw: Pick<CatalogFace, 'catalog'>, req: TurnRequest, json: boolean, out: (s: string) => void): number {
  const c = gw.catalog(req);
  if (json) {
    out(JSON.stringify(c, null, 2));
    return 0;
  }
  const rows = c.tools.map((t) => [
    t.source,
    t.mcpPath ?? t.callableName,
    t.name,
    [t.directOnly && 'direct-only', t.control && 'control (hidden in code mode)', t.deniedBy && `denied (${t.deniedBy})`, t.approval && 'approval', t.executionMode === 'sequential' && 'sequential', t.networkContent && 'network']
      .filter(Boolean)
      .join(', '),
  ]);
  const header = ['source', 'callable', 'exact name', 'flags'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  out(line(header));
  out(line(widths.map((w) => '-'.repeat(w))));
  for (const r of rows) out(line(r.map(String)));
  for (const e of c.pluginErrors) out(`plugin ${e.plugin} failed to load: ${e.error}`);
  out('\n// declarations');
  for (const t of c.tools) if (t.declaration && !t.deniedBy) out(t.declaration);
  // the named types those declarations refer to (an OpenAPI source's `inventory.NewItem`), one file per source
  for (const f of c.typeFiles) out(`\n// ${f.path}\n${f.text}`);
  return 0;
}

interface RunOptions {
  executor: ExecutorKind | 'all' | undefined;
  approve: boolean;
  /** --tokens: print each cell's token meter. */
  tokens: boolean;
  /** --otlp: where the cells' traces go as OTLP/JSON. */
  otlpFile: string | undefined;
  seed?: number;
  /** Where --record writes the cell's cassette. */
  record?: string;
  /** The cassette --replay read (checked). */
  replay?: Cassette;
}

/** A cassette file is read whole: past this it is not a recording of one cell. */
export const MAX_CASSETTE_FILE_BYTES = 64 * 1024 * 1024;
/** A cell file read by `codemode run` (the Gateway then holds it to tools.codeMode.maxSourceBytes). */
export const MAX_CELL_FILE_BYTES = 64 * 1024 * 1024;

/** --seed, --record and --replay, checked before a Gateway starts (the cassette file is hostile input). */
function replayLabOptions(values: { seed?: string; record?: string; replay?: string }, files: number): { seed?: number; record?: string; replay?: Cassette } | { error: string } {
  const out: { seed?: number; record?: string; replay?: Cassette } = {};
  if ((values.record !== undefined || values.replay !== undefined) && files !== 1) return { error: '--record and --replay take one cell file' };
  if (values.record !== undefined && values.replay !== undefined) return { error: 'use --record or --replay, not both' };
  if (values.seed !== undefined) {
    const n = /^\d{1,10}$/.test(values.seed) ? Number(values.seed) : NaN;
    if (!(n <= 0xffff_ffff)) return { error: `--seed must be an integer from 0 to 4294967295, got "${values.seed.slice(0, 40)}"` };
    out.seed = n;
  }
  if (values.record !== undefined) {
    // checked before the cells run: their tool calls may not be undone when the file cannot be written after
    const problem = unwritableFileProblem(values.record);
    if (problem) return { error: `--record: ${problem}` };
    out.record = values.record;
  }
  if (values.replay !== undefined) {
    try {
      out.replay = parseCassette(JSON.parse(readTextFile(values.replay, MAX_CASSETTE_FILE_BYTES)));
    } catch (err) {
      return { error: `cannot replay ${values.replay}: ${(err as Error).message}` };
    }
  }
  return out;
}

interface CellInput {
  code: string;
  language: 'javascript' | 'typescript';
  typecheck: boolean;
}

/** Runs the cells one after another in one turn (as a model's successive exec calls would); 0 when all completed. */
async function runCells(gw: ModelFace & RunsFace & LabFace, req: TurnRequest, cells: CellInput[], opts: RunOptions, out: (s: string) => void): Promise<number> {
  const { executor, approve, otlpFile } = opts;
  const turn = gw.prepareTurn(req);
  // a command line has no operator: approvals follow --approve
  const unsubscribe = gw.subscribe((e) => {
    if (e.type === 'approval.requested') {
      gw.decideApproval({ approvalId: e.approval.approvalId, approve: approve, ...(approve ? {} : { reason: 'no operator on the command line (pass --approve)' }) });
    }
  });
  try {
    let allCompleted = true;
    const runIds: string[] = [];
    for (const input of cells) {
      if (executor === 'all') {
        const cell = { code: input.code, language: input.language, ...(input.typecheck ? { typecheck: true } : {}) };
        for (const row of await gw.compareExecutors(turn.agentRunId, cell, undefined, opts.seed !== undefined ? { seed: opts.seed } : {})) {
          out(JSON.stringify(row));
          if (row.status !== 'completed') allCompleted = false;
        }
        continue;
      }
      let result: CodeModeResult = await gw.exec(
        turn.agentRunId,
        { code: input.code, language: input.language, ...(input.typecheck ? { typecheck: true } : {}) },
        { ...(executor ? { executor } : {}), ...(opts.seed !== undefined ? { seed: opts.seed } : {}), ...(opts.replay ? { replay: opts.replay } : {}) },
      );
      out(JSON.stringify(result));
      const runId = result.status === 'waiting' ? result.runId : result.telemetry.runId;
      while (result.status === 'waiting') {
        result = await gw.wait(turn.agentRunId, { runId: result.runId });
        out(JSON.stringify(result));
      }
      if (result.status !== 'completed') allCompleted = false;
      if (opts.tokens) printMeter(gw, result, out);
      if (result.telemetry.runId !== undefined) runIds.push(result.telemetry.runId);
      if (opts.record) {
        const cassette = runId ? gw.cassette(runId) : undefined;
        if (!cassette) throw new Error(`no run to record into ${opts.record}: the cell failed before it ran`);
        writeFileSync(opts.record, JSON.stringify(cassette, null, 2) + '\n');
      }
    }
    if (otlpFile !== undefined) {
      const trajectories = runIds.flatMap((id) => gw.trajectory(id) ?? []);
      // loaded only for --otlp: the OpenTelemetry packages are not part of every command's start
      const { trajectoriesOtlpJson } = await import('../gateway/otlp.ts');
      writeFileSync(otlpFile, trajectoriesOtlpJson(trajectories));
      process.stderr.write(`codemode run: wrote ${trajectories.length} trace(s) as OTLP/JSON to ${otlpFile}\n`);
    }
    return allCompleted ? 0 : 1;
  } finally {
    unsubscribe();
    gw.endTurn(turn.agentRunId);
  }
}

/** The `--tokens` line of a settled cell: its run's token meter, marked as the estimate it is (a cell that failed before it ran has none). */
function printMeter(gw: Pick<RunsFace, 'run'>, result: CodeModeResult, out: (s: string) => void): void {
  const runId = result.status === 'waiting' ? result.runId : result.telemetry.runId;
  const meter = runId !== undefined ? gw.run(runId)?.meter : undefined;
  out(JSON.stringify({ tokens: meter ? { runId, estimate: true, ...meter } : { runId: runId ?? null, estimate: true, unavailable: 'the cell did not run, so nothing was counted' } }));
}

/** console.log and friends write to stderr: on `codemode mcp` stdout carries nothing but JSON-RPC. */
function keepStdoutForProtocol(): void {
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}

/**
 * The process entry (`bin/codemode.mjs` calls it): runs `main` on the process's arguments and sets the exit code.
 * Explicit rather than guarded on the script path, so it runs the same through `npx`, `npm run`, a `.bin` link or `npm link`.
 */
export async function runCli(argv: string[] = process.argv.slice(2)): Promise<void> {
  // a closed pipe (`codemode catalog | head`) ends output quietly
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
  process.exitCode = await main(argv);
}
