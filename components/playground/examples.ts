// Example cells to start from; each shows one Code Mode behaviour against the shipped demo catalog.
import type { CellLanguage } from '../editor/share.ts';

export interface ExampleCell {
  id: string;
  title: string;
  language: CellLanguage;
  code: string;
}

export const EXAMPLES: ExampleCell[] = [
  {
    id: 'parallel-search',
    title: 'Parallel web_search + join',
    language: 'javascript',
    code: `// Two searches run in parallel (watch them overlap in the timeline), then join.
const [engines, snapshots] = await Promise.all([
  web_search({ query: 'QuickJS sandbox' }),
  web_search({ query: 'snapshot restore', limit: 3 }),
]);
const titles = (r) => r.results.map((hit) => hit.title);
return { engines: titles(engines), snapshots: titles(snapshots) };
`,
  },
  {
    id: 'read-grep',
    title: 'read + grep the workspace',
    language: 'javascript',
    code: `// grep finds lines across the demo workspace; read opens the first file it hit.
const found = await grep({ pattern: 'TODO' });
console.log(\`\${found.matches.length} matches in \${found.filesScanned} files\`);
const first = found.matches[0];
if (!first) return { matches: 0 };
const file = await read({ path: first.path });
return { file: first.path, line: first.line, bytes: file.bytes, head: file.content.slice(0, 200) };
`,
  },
  {
    id: 'sleep-wait',
    title: 'sleep past the deadline -> waiting',
    language: 'javascript',
    code: `// sleep outlasts the exec deadline: exec returns "waiting" with a snapshot.
// Press Wait on the waiting-runs board; the restored cell then finishes.
const started = Date.now();
console.log('before sleep');
await sleep({ ms: 15000 });
console.log('after restore');
return { sleptMs: Date.now() - started };
`,
  },
  {
    id: 'clock',
    title: "Today's date and elapsed time",
    language: 'javascript',
    code: `// A cell reads the host's real clock: today's date, and time that moves across awaits.
// (A run with an explicit seed, from the Replay lab, reads the seed's logical clock instead.)
const started = Date.now();
const t0 = performance.now();
await sleep({ ms: 500 });
return {
  today: new Date().toISOString().slice(0, 10),
  elapsedMs: Date.now() - started,
  perfElapsedMs: performance.now() - t0,
};
`,
  },
  {
    id: 'search-describe',
    title: 'catalog.search + describe',
    language: 'javascript',
    code: `// Discover tools at run time: search the hidden catalog, then describe a hit.
const hits = await catalog.search('weather', { limit: 3 });
const first = hits[0];
if (!first) return { hits: [] };
const described = await first.describe();
return { hits: hits.map((h) => h.callableName), described };
`,
  },
  {
    id: 'store-load',
    title: 'store / load (session store)',
    language: 'javascript',
    code: `// The session store outlives the cell: run this twice and the counter goes up.
// load() gives unknown (whatever was stored): say what you expect before using it.
const previous = Number((await load('counter')) ?? 0);
await store('counter', previous + 1);
return { previous, now: previous + 1 };
`,
  },
  {
    id: 'mcp-call',
    title: 'MCP call',
    language: 'javascript',
    code: `// MCP tools live under MCP.<server>; API.list / API.read show their declarations without a tool call.
console.log(API.list('mcp'));
const sum = await MCP.demo.add({ a: 2, b: 3 });
const echo = await MCP.demo.echo({ text: 'hello from a cell' });
return { sum: sum.structuredContent, echo: echo.content, declarations: API.read('mcp/demo.d.ts').length };
`,
  },
  {
    id: 'infinite-loop',
    title: 'Infinite loop -> timeout',
    language: 'javascript',
    code: `// The worker's interrupt handler stops this at the deadline: the result is failed/timeout,
// and the Gateway keeps serving.
let spins = 0;
while (true) {
  spins++;
}
`,
  },
  {
    id: 'client-tool',
    title: 'Client tool (answer it on the board)',
    language: 'javascript',
    code: `// ask_user is a client tool this page defines: the run waits until you answer it
// in the form on the waiting-runs board, then Wait delivers the answer.
const reply = await ask_user({ question: 'Ship the release today?' });
return { reply };
`,
  },
  {
    id: 'approval',
    title: 'Shell exec (needs approval)',
    language: 'javascript',
    code: `// The shell exec tool needs an operator's approval: approve or deny it in the prompt.
try {
  const listing = await exec({ command: 'ls' });
  return { listing };
} catch (error) {
  return { refused: String(error) };
}
`,
  },
  {
    id: 'typescript',
    title: 'TypeScript cell',
    language: 'typescript',
    code: `// TypeScript: types are stripped before the cell runs; the editor checks them against the catalog.
// weather_lookup's result has the type its declaration gives (hover it): no cast, so a wrong field is an error.
type Forecast = Awaited<ReturnType<typeof weather_lookup>>;
const cities = ['Lisbon', 'Oslo'];
const forecasts: Forecast[] = await Promise.all(cities.map((city) => weather_lookup({ city })));
const warmest = forecasts.reduce((a, b) => (b.tempC > a.tempC ? b : a));
return { forecasts: forecasts.map((f) => ({ city: f.city, tempC: f.tempC, condition: f.condition })), warmest: warmest.city };
`,
  },
];

export const DEFAULT_EXAMPLE: ExampleCell = EXAMPLES[0] as ExampleCell;

/** The example with this id, if it is one of the menu's. */
export function findExample(id: string | undefined): ExampleCell | undefined {
  return id === undefined ? undefined : EXAMPLES.find((x) => x.id === id);
}

/**
 * Whether loading an example over `code` loses work: anything but an empty cell or the untouched code of
 * the example it was loaded from (with no example loaded, the untouched code of any example).
 */
export function cellIsEdited(code: string, loadedExampleId: string | undefined): boolean {
  const text = code.trim();
  if (text === '') return false;
  const loaded = findExample(loadedExampleId);
  if (loaded) return loaded.code.trim() !== text;
  return !EXAMPLES.some((x) => x.code.trim() === text);
}

/** The example the menu still shows for `code`: `exampleId` while the cell is that example's code untouched (ends' whitespace aside), else none. */
export function exampleStillLoaded(code: string, exampleId: string | undefined): string | undefined {
  const loaded = findExample(exampleId);
  return loaded && loaded.code.trim() === code.trim() ? loaded.id : undefined;
}
