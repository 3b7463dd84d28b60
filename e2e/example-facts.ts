// What each shipped example cell (components/playground/examples.ts) must answer, checked against facts found apart
// from the cell: the host's clock and date around the run, the demo tools called directly, `ls` run here. Shared by
// the E2E test that runs each example from the page (examples.spec.ts) and the unit test that runs them through a
// Gateway (components/playground/examples-truth.test.ts): an example that answers wrongly fails both, not only one
// that errors.
import { execFileSync } from 'node:child_process';
import { isDeepStrictEqual } from 'node:util';
import { createWeatherPlugin, fixtureWeather } from '../server/tools/bundled/weather.ts';
import { createCoreTools } from '../server/tools/core/index.ts';
import { callTool, DEMO_WORKSPACE, findTool, testConfig } from '../server/tools/testing.ts';
import { EXAMPLES } from '../components/playground/examples.ts';

/** One finished run of an example, as the test saw it. */
export interface ExampleRun {
  /** The completed value. */
  value: unknown;
  /** The text of its output lines, in order. */
  output: string[];
  /** The host's clock (epoch ms) before the run was started and after its final result arrived. */
  startedAt: number;
  endedAt: number;
  /** client-tool: the answer the test typed on the board. */
  answer?: string;
  /** store-load: the counter the previous run of the example stored (undefined: the first run, or unknown). */
  counterBefore?: number;
  /** sleep-wait: the delay the run's cell slept (default: the example's own, sleepExampleMs()). */
  sleepMs?: number;
}

/** The sleep example's delay, read from its own code (so the fact follows the example). */
export function sleepExampleMs(): number {
  const code = EXAMPLES.find((e) => e.id === 'sleep-wait')?.code ?? '';
  const ms = /sleep\(\{ ms: (\d+) \}\)/.exec(code)?.[1];
  if (!ms) throw new Error('the sleep-wait example no longer calls sleep({ ms: N })');
  return Number(ms);
}

const core = createCoreTools(testConfig());
const tool = (name: string) => findTool(core, name);

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function same(what: string, actual: unknown, expected: unknown, problems: string[]): void {
  if (!isDeepStrictEqual(actual, expected)) problems.push(`${what}: got ${JSON.stringify(actual)}, the facts say ${JSON.stringify(expected)}`);
}

function within(what: string, actual: unknown, low: number, high: number, problems: string[]): void {
  if (typeof actual !== 'number' || !(actual >= low && actual <= high)) problems.push(`${what}: got ${JSON.stringify(actual)}, the facts say ${low} to ${high}`);
}

/** What is wrong with `run` as example `id`'s answer (empty: it told the truth); the infinite loop has no answer to check. */
export async function exampleProblems(id: string, run: ExampleRun): Promise<string[]> {
  const problems: string[] = [];
  const v = run.value as Record<string, unknown>;
  const elapsed = run.endedAt - run.startedAt;
  switch (id) {
    case 'parallel-search': {
      const titles = async (input: object) => ((await callTool(tool('web_search'), input)) as { results: Array<{ title: string }> }).results.map((h) => h.title);
      same('engines', v.engines, await titles({ query: 'QuickJS sandbox' }), problems);
      same('snapshots', v.snapshots, await titles({ query: 'snapshot restore', limit: 3 }), problems);
      break;
    }
    case 'read-grep': {
      const found = (await callTool(tool('grep'), { pattern: 'TODO' })) as { matches: Array<{ path: string; line: number }>; filesScanned: number };
      same('console line', run.output[0], `${found.matches.length} matches in ${found.filesScanned} files`, problems);
      const first = found.matches[0];
      if (!first) {
        same('value', v, { matches: 0 }, problems);
        break;
      }
      const file = (await callTool(tool('read'), { path: first.path })) as { bytes: number; content: string };
      same('value', v, { file: first.path, line: first.line, bytes: file.bytes, head: file.content.slice(0, 200) }, problems);
      break;
    }
    case 'sleep-wait':
      // the time it slept, on the real clock: at least the delay, at most the whole run as the host saw it
      within('sleptMs', v.sleptMs, run.sleepMs ?? sleepExampleMs(), elapsed, problems);
      break;
    case 'clock':
      if (v.today !== utcDay(run.startedAt) && v.today !== utcDay(run.endedAt)) problems.push(`today: got ${JSON.stringify(v.today)}, the host's date is ${utcDay(run.startedAt)}`);
      within('elapsedMs', v.elapsedMs, 500, elapsed, problems);
      within('perfElapsedMs', v.perfElapsedMs, 500, elapsed, problems);
      break;
    case 'search-describe': {
      const plugin = createWeatherPlugin().tools;
      const lookup = Array.isArray(plugin) ? plugin.find((t) => t.name === 'weather.lookup') : undefined;
      const hits = v.hits as string[];
      same('first hit', hits?.[0], 'weather_lookup', problems);
      const described = v.described as Record<string, unknown>;
      same('described name', described?.name, lookup?.name, problems);
      same('described description', described?.description, lookup?.description, problems);
      same('described input schema', described?.inputSchema, lookup?.inputSchema, problems);
      break;
    }
    case 'mcp-call':
      same('sum', v.sum, { sum: 5 }, problems);
      same('echo', v.echo, [{ type: 'text', text: 'hello from a cell' }], problems);
      within('declarations', v.declarations, 1, Number.MAX_SAFE_INTEGER, problems);
      if (!run.output[0]?.includes('mcp/demo.d.ts')) problems.push(`console line: got ${JSON.stringify(run.output[0])}, API.list('mcp') lists mcp/demo.d.ts`);
      break;
    case 'store-load':
      if (typeof v.previous !== 'number' || v.now !== v.previous + 1) problems.push(`counter: got ${JSON.stringify(v)}, now must be previous + 1`);
      if (run.counterBefore !== undefined) same('previous', v.previous, run.counterBefore, problems);
      break;
    case 'client-tool':
      same('reply', v.reply, { answer: run.answer }, problems);
      break;
    case 'approval': {
      const listing = v.listing as { exitCode: number; stdout: string };
      same('exitCode', listing?.exitCode, 0, problems);
      same('ls output', listing?.stdout, execFileSync('ls', { cwd: DEMO_WORKSPACE, encoding: 'utf8' }), problems);
      break;
    }
    case 'typescript': {
      const facts = ['Lisbon', 'Oslo'].map(fixtureWeather);
      same('forecasts', v.forecasts, facts.map((f) => ({ city: f.city, tempC: f.tempC, condition: f.condition })), problems);
      same('warmest', v.warmest, facts.reduce((a, b) => (b.tempC > a.tempC ? b : a)).city, problems);
      break;
    }
    default:
      problems.push(`no facts for example "${id}": add them here`);
  }
  return problems;
}
