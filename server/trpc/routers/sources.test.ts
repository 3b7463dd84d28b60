// The sources API end to end on a real Gateway started from a config file: operator only, stdio confirmed and
// refused when exposed, MCP and OpenAPI sources added live and called from cells, saved to the config file.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInventoryServer, type InventoryServer } from '../../../demo/openapi/server.mjs';
import { startGitHubFixture } from '../../../demo/openapi/github/server.mjs';
import { loadConfigFile } from '../../config/load.ts';
import { createGateway, type Gateway } from '../../gateway.ts';
import { expectCompleted } from '../../testing.ts';
import { DEMO_SERVER_SCRIPT } from '../../tools/mcp/testing.ts';
import { DEMO_WORKSPACE, REPO_ROOT } from '../../tools/testing.ts';
import { createEdgeState } from '../context.ts';
import { callerFor, clientAccess, OPERATOR, TEST_OWNERS, rejection, type RouterCaller } from '../testing.ts';

const INVENTORY_TEXT = readFileSync(join(REPO_ROOT, 'demo/openapi/inventory.yaml'), 'utf8');

let dir: string;
let configFile: string;
let gateway: Gateway;
let api: InventoryServer;
let operator: RouterCaller;
let client: RouterCaller;
let exposedOperator: RouterCaller;
const logs: string[] = [];

function writeConfig(extra: Record<string, unknown> = {}): void {
  const config = {
    tools: { codeMode: { enabled: true, executor: 'quickjs' } },
    workspace: DEMO_WORKSPACE,
    sessions: { path: ':memory:' },
    ...extra,
  };
  writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'codemode-sources-'));
  configFile = join(dir, 'codemode.config.json');
  writeConfig();
  api = await startInventoryServer();
  gateway = await createGateway({ configPath: configFile, log: (line) => logs.push(line) });
  const edge = createEdgeState(gateway.config.server);
  operator = callerFor(gateway, OPERATOR, edge);
  client = callerFor(gateway, clientAccess(TEST_OWNERS.anonymous), edge);
  exposedOperator = callerFor(gateway, { ...OPERATOR, exposed: true }, edge);
});

afterAll(async () => {
  await gateway?.close();
  await api?.close();
});

const stdio = { command: process.execPath, args: [DEMO_SERVER_SCRIPT] };

describe('sources API', () => {
  it('is operator-only: a client with no cookie is refused every procedure', async () => {
    for (const call of [
      () => client.sources.list(),
      () => client.sources.commandLine(stdio),
      () => client.sources.add({ kind: 'mcp-http', name: 'x', url: 'http://127.0.0.1:1/mcp' }),
      () => client.sources.remove({ name: 'x' }),
      () => client.sources.save({ name: 'x' }),
    ]) {
      const error = await rejection(call());
      expect(error.code).toBe('FORBIDDEN');
      expect(error.message).toMatch(/is an operator action: only the playground page/);
    }
    expect(gateway.sources()).toEqual([]);
  });

  it('runs a stdio command only with its exact command line confirmed, and never while exposed unless the config allows it', async () => {
    const { commandLine } = await operator.sources.commandLine({ ...stdio, env: { GREETING: 'hello world' } });
    expect(commandLine).toBe(`GREETING='hello world' ${process.execPath} ${DEMO_SERVER_SCRIPT}`);
    const unconfirmed = await rejection(operator.sources.add({ kind: 'mcp-stdio', name: 'live', ...stdio, confirmCommandLine: 'node something-else.mjs' }));
    expect(unconfirmed.message).toContain(`confirm the exact command line before it runs: ${process.execPath} ${DEMO_SERVER_SCRIPT}`);
    const exposed = await rejection(
      exposedOperator.sources.add({ kind: 'mcp-stdio', name: 'live', ...stdio, confirmCommandLine: `${process.execPath} ${DEMO_SERVER_SCRIPT}` }),
    );
    expect(exposed.code).toBe('BAD_REQUEST');
    expect(exposed.message).toMatch(/exposed beyond loopback; set "sources": \{ "allowStdioWhenExposed": true \}/);
    expect(gateway.sources()).toEqual([]);
  });

  it('adds the demo MCP server live: the next turn calls it, a turn prepared before keeps its catalog; the addition is logged', async () => {
    const before = gateway.prepareTurn({});
    const view = await operator.sources.add({ kind: 'mcp-stdio', name: 'live', ...stdio, confirmCommandLine: `${process.execPath} ${DEMO_SERVER_SCRIPT}` });
    expect(view).toMatchObject({ name: 'live', kind: 'mcp-stdio', origin: 'added' });
    const settled = await operator.sources.settled({ name: 'live' });
    expect(settled).toMatchObject({ state: 'connected', toolCount: expect.any(Number) });
    expect(settled?.toolCount).toBeGreaterThan(3);
    expect(logs.some((l) => l.includes(`operator added stdio MCP server "live": ${process.execPath} ${DEMO_SERVER_SCRIPT}`))).toBe(true);

    const after = gateway.prepareTurn({});
    const result = expectCompleted(await gateway.exec(after.agentRunId, { code: 'return (await MCP.live.add({ a: 2, b: 3 })).structuredContent.sum' }));
    expect(result.value).toBe(5);
    const old = await gateway.exec(before.agentRunId, { code: 'return typeof MCP.live' });
    expect(expectCompleted(old).value).toBe('undefined');
  });

  it('adds an OpenAPI document by upload; cells call its operations over HTTP and get network content', async () => {
    await operator.sources.add({ kind: 'openapi', name: 'inventory', documentText: INVENTORY_TEXT, baseUrl: api.url });
    expect(await operator.sources.settled({ name: 'inventory' })).toMatchObject({ state: 'connected', toolCount: 5, kind: 'openapi' });
    const turn = gateway.prepareTurn({});
    expect(gateway.catalog({}).declarations).toContain('declare function listItems(');
    const result = expectCompleted(
      await gateway.exec(turn.agentRunId, { code: 'const tools = await listItems({ category: "parts" }); return tools.map((t) => t.name)' }),
    );
    expect(result.value).toEqual(['Hex bolt M6']);
    expect(result.telemetry.networkContent).toBe(true);
    expect(api.requests.at(-1)?.path).toBe('/items?category=parts');
  });

  it('adds an OpenAPI document by URL', async () => {
    await operator.sources.remove({ name: 'inventory' });
    await operator.sources.add({ kind: 'openapi', name: 'byurl', document: `${api.url}/openapi.yaml`, baseUrl: api.url });
    expect(await operator.sources.settled({ name: 'byurl' })).toMatchObject({ state: 'connected', toolCount: 5, detail: `${api.url}/openapi.yaml -> ${api.url}/` });
    const turn = gateway.prepareTurn({});
    expect(expectCompleted(await gateway.exec(turn.agentRunId, { code: 'return (await get_stats({})).items' })).value).toBe(3);
  });

  it('saves added sources into the config file, keeping the previous file as .bak; a restart loads them', async () => {
    const previous = readFileSync(configFile, 'utf8');
    await operator.sources.add({ kind: 'openapi', name: 'uploaded', documentText: INVENTORY_TEXT, baseUrl: api.url });
    const saved = await operator.sources.save({ name: 'live' });
    expect(saved).toEqual({ file: configFile, backup: `${configFile}.bak` });
    expect(readFileSync(`${configFile}.bak`, 'utf8')).toBe(previous);
    const upload = await operator.sources.save({ name: 'uploaded' });
    expect(upload.documentFile).toBe(join(dir, 'sources', 'uploaded.openapi.yaml'));
    expect(readFileSync(upload.documentFile ?? '', 'utf8')).toBe(INVENTORY_TEXT);
    await operator.sources.save({ name: 'byurl' });
    const again = await rejection(operator.sources.save({ name: 'live' }));
    expect(again.message).toMatch(/source "live" already comes from the config file/);

    const written = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, any>;
    expect(written['mcp'].servers.live).toEqual(stdio);
    expect(written['sources'].openapi.uploaded).toEqual({ document: join('sources', 'uploaded.openapi.yaml'), baseUrl: api.url });
    expect(written['sources'].openapi.byurl).toEqual({ document: `${api.url}/openapi.yaml`, baseUrl: api.url });
    const reloaded = loadConfigFile(configFile);
    expect(Object.keys(reloaded.mcp.servers)).toEqual(['live']);
    expect(reloaded.sources?.openapi['uploaded']?.document).toBe(join(dir, 'sources', 'uploaded.openapi.yaml'));

    const restarted = await createGateway({ configPath: configFile });
    try {
      await restarted.mcpReady();
      expect(restarted.sources().map((s) => [s.name, s.origin, s.state])).toEqual([
        ['live', 'config', 'connected'],
        ['uploaded', 'config', 'connected'],
        ['byurl', 'config', 'connected'],
      ]);
    } finally {
      await restarted.close();
    }
    expect(existsSync(`${configFile}.bak`)).toBe(true);
  });

  it('adds an OpenAPI document by a path on the Gateway machine (relative to the config folder), never while exposed', async () => {
    // the inventory's operation names are held by the sources added above: a later source's would be left out
    for (const name of ['byurl', 'uploaded']) await operator.sources.remove({ name });
    writeFileSync(join(dir, 'inventory.yaml'), INVENTORY_TEXT);
    expect((await rejection(exposedOperator.sources.add({ kind: 'openapi', name: 'bypath', document: 'inventory.yaml', baseUrl: api.url }))).message).toMatch(
      /this server is exposed beyond loopback, so an OpenAPI document is added by URL or upload only/,
    );
    await operator.sources.add({ kind: 'openapi', name: 'bypath', document: 'inventory.yaml', baseUrl: api.url });
    expect(await operator.sources.settled({ name: 'bypath' })).toMatchObject({ state: 'connected', toolCount: 5, detail: `inventory.yaml -> ${api.url}/` });
    await operator.sources.remove({ name: 'bypath' });
  });

  it("adds GitHub's whole REST API description by path; a cell lists and creates issues against the loopback fixture", async () => {
    const github = await startGitHubFixture();
    try {
      const document = join(REPO_ROOT, 'node_modules/@octokit/openapi/generated/api.github.com.json');
      await operator.sources.add({ kind: 'openapi', name: 'github', document, baseUrl: github.url });
      const view = await operator.sources.settled({ name: 'github' });
      expect(view).toMatchObject({ state: 'connected', kind: 'openapi' });
      expect(view?.toolCount).toBeGreaterThan(1000);
      const turn = gateway.prepareTurn({});
      const code = [
        'const created = await issues_create({ owner: "octo-org", repo: "demo", body: { title: "Found in a cell", labels: ["bug"] } });',
        'const open = await issues_list_for_repo({ owner: "octo-org", repo: "demo" });',
        'const [hit] = await catalog.search("create an issue in a repository", { limit: 3 });',
        'return { number: created.number, title: created.title, label: created.labels[0]?.name, open: open.map((i) => i.title), searched: (await catalog.search("create an issue in a repository", { limit: 3 })).map((h) => h.name), decl: (await hit.describe()).declaration.includes("type Issue = ") };',
      ].join('\n');
      const result = expectCompleted(await gateway.exec(turn.agentRunId, { code }));
      expect(result.value).toMatchObject({ number: 1348, title: 'Found in a cell', label: 'bug', open: ['Found in a cell', 'Found a bug'], searched: expect.arrayContaining(['issues/create']) });
      expect(github.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /repos/octo-org/demo/issues', 'GET /repos/octo-org/demo/issues']);
      // the editor gets GitHub's named types as a file of their own, beside the ambient declarations
      expect(gateway.catalog({}).typeFiles.map((f) => f.path)).toContain('openapi/github.d.ts');
      expect(gateway.catalog({}).declarations).not.toContain('type Issue = ');
    } finally {
      await operator.sources.remove({ name: 'github' });
      await github.close();
    }
  }, 60_000);

  it('names a failed source and why', async () => {
    await operator.sources.add({ kind: 'openapi', name: 'broken', documentText: 'openapi: 2.0\n' });
    const view = await operator.sources.settled({ name: 'broken' });
    expect(view).toMatchObject({ state: 'failed', toolCount: 0 });
    expect(view?.error).toMatch(/OpenAPI source "broken" has no "openapi": "3\.0\.x"/);
    expect(await operator.sources.remove({ name: 'broken' })).toEqual({ removed: true });
    expect(gateway.sources().map((s) => s.name)).not.toContain('broken');
  });
});
