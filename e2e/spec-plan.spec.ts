// E2E: the spec's E2E test plan (maintainer notes), the steps a user can observe in the playground.
import { readFileSync } from 'node:fs';
import { expect, test } from './fixtures.ts';
import { E2E_DISABLED_PORT } from './ports.ts';
import { openPlayground, panelShot, pickAgent, resultRunId, resultValue, runCell, settle, waitingRun } from './helpers.ts';

async function surfaceToolNames(page: import('@playwright/test').Page): Promise<string[]> {
  return page.getByTestId('surface-tool').evaluateAll((els) => els.map((el) => el.getAttribute('data-name') ?? ''));
}

test('steps 1-3: with code mode disabled, the model-visible tools are exactly the direct tool set, unchanged', async ({ page }, testInfo) => {
  await openPlayground(page, `http://127.0.0.1:${E2E_DISABLED_PORT}/`);
  await expect(page.getByTestId('surface-codemode')).toHaveAttribute('data-codemode', 'off');
  // every effective tool in catalog order under its exact name (the page's client tool last): nothing hidden, no wait
  expect(await surfaceToolNames(page)).toEqual([
    ...['read', 'grep', 'web_search', 'web_fetch', 'sleep', 'image_generate', 'exec', 'tool_search', 'tool_describe'],
    ...['llm-task', 'weather.lookup', 'notes_append', 'delete', 'catalog', '2fa'],
    ...['echo', 'add', 'lookup-user', 'slow', 'crash'],
    'ask_user',
  ]);
  await panelShot(page, 'surface-panel', 'surface-disabled', testInfo);
});

test('steps 4-6: with code mode enabled, the model sees exec, wait and only the direct-only tool', async ({ page }) => {
  await openPlayground(page);
  await expect(page.getByTestId('surface-codemode')).toHaveAttribute('data-codemode', 'on');
  expect((await surfaceToolNames(page)).sort()).toEqual(['exec', 'image_generate', 'wait']);
  // The turn brings every kind of tool: core, plugins, MCP and the page's client tool.
  for (const source of ['core', 'bundled_plugin', 'external_plugin', 'mcp', 'client']) {
    await expect(page.getByTestId(`catalog-source-${source}`)).toBeVisible();
  }
  await expect(page.getByTestId('catalog-direct-only')).toContainText('image_generate');
});

test('step 7: normalized, reserved and colliding names are bare globals matching the quick index', async ({ page }) => {
  await openPlayground(page);
  const callableOf = async (name: string) =>
    (await page.locator(`[data-testid=catalog-tool][data-name="${name}"]`).first().getAttribute('data-callable')) ?? '';
  const projected = {
    'llm-task': await callableOf('llm-task'),
    'weather.lookup': await callableOf('weather.lookup'),
    delete: await callableOf('delete'),
    catalog: await callableOf('catalog'),
    '2fa': await callableOf('2fa'),
  };
  expect(projected['llm-task']).toBe('llm_task');
  expect(projected['weather.lookup']).toBe('weather_lookup');
  // A reserved word, a specialized global and an invalid first character never keep their raw spelling.
  expect(projected.delete).not.toBe('delete');
  expect(projected.catalog).not.toBe('catalog');
  expect(projected['2fa']).toMatch(/^tool_2fa|^[A-Za-z_$]/);
  for (const callable of Object.values(projected)) expect(callable).toMatch(/^[A-Za-z_$][\w$]*$/);

  await page.getByTestId('surface-exec-description-toggle').click();
  const quickIndex = await page.getByTestId('surface-exec-description').innerText();
  for (const callable of Object.values(projected)) expect(quickIndex).toContain(callable);

  const checks = Object.values(projected).map((c) => `${JSON.stringify(c)}: typeof ${c}`);
  const status = await runCell(page, `const weather = await weather_lookup({ city: 'Oslo' });\nreturn { types: { ${checks.join(', ')} }, catalogIsSearch: typeof catalog.search, weather: typeof weather };\n`);
  expect(status).toBe('completed');
  const value = (await resultValue(page)) as { types: Record<string, string>; catalogIsSearch: string; weather: string };
  expect(Object.values(value.types).every((t) => t === 'function')).toBe(true);
  expect(value.catalogIsSearch).toBe('function');
  expect(value.weather).toBe('object');
});

test('step 7: the reserved-name tools answer through their projected names; a real normalized collision keeps both tools apart', async ({ page }) => {
  await openPlayground(page);
  // a client tool spelled exactly like weather.lookup's normalized name: the exact safe name claims the bare global
  await page.getByTestId('client-tools-toggle').click();
  const editor = page.getByTestId('client-tools-json');
  const tools = JSON.parse(await editor.inputValue()) as unknown[];
  tools.push({ name: 'weather_lookup', description: 'The page asks the user for the weather.', inputSchema: { type: 'object', properties: {} } });
  await editor.fill(JSON.stringify(tools, null, 2));
  await page.getByTestId('client-tools-apply').click();
  await expect(page.locator('[data-testid=catalog-tool][data-name="weather_lookup"]')).toHaveCount(1);
  const status = await runCell(
    page,
    `const byName = Object.fromEntries((await catalog.all()).map((h) => [h.name + '/' + h.source, h.callableName]));
const del = globalThis[byName['delete/external_plugin']];
const cat = globalThis[byName['catalog/external_plugin']];
const weather = globalThis[byName['weather.lookup/bundled_plugin']];
return {
  byName,
  deleted: (await del({ key: 'draft-2' })).deleted,
  bikes: (await cat({ category: 'bikes' })).products.map((p) => p.sku),
  code: (await tool_2fa({ secret: 'JBSWY3DPEHPK3PXP', atMs: 0 })).code,
  pluginWeather: (await weather({ city: 'Oslo' })).city,
  bareWeather: (await weather_lookup.describe()).source,
};
`,
  );
  expect(status).toBe('completed');
  const value = (await resultValue(page)) as { byName: Record<string, string>; deleted: boolean; bikes: string[]; code: string; pluginWeather: string; bareWeather: string };
  expect(value.byName['delete/external_plugin']).toMatch(/^delete_[0-9a-z]{6}$/);
  expect(value.byName['catalog/external_plugin']).toMatch(/^catalog_[0-9a-z]{6}$/);
  expect(value.byName['2fa/external_plugin']).toBe('tool_2fa');
  expect(value.byName['weather_lookup/client']).toBe('weather_lookup');
  expect(value.byName['weather.lookup/bundled_plugin']).toMatch(/^weather_lookup_[0-9a-z]{6}$/);
  expect(value).toMatchObject({ deleted: true, bikes: ['BK-100', 'BK-220'], pluginWeather: 'Oslo', bareWeather: 'client' });
  expect(value.code).toMatch(/^\d{6}$/);
});

test('step 8: catalog search, handle metadata and describe() work for core, plugin and client tools without ids', async ({ page }) => {
  await openPlayground(page);
  const status = await runCell(
    page,
    `const hits = await catalog.search('weather');
const handle = hits.find((h) => h.callableName === 'weather_lookup');
const described = await handle.describe();
const viaHandle = await handle({ city: 'Lisbon' });
const all = await catalog.all();
const client = all.find((h) => h.source === 'client');
const clientDescribed = await client.describe();
const readHandle = (await catalog.search('read a text file from the workspace')).find((h) => h.source === 'core' && h.name === 'read');
const readViaHandle = await readHandle({ path: 'README.md' });
return {
  names: hits.map((h) => h.callableName),
  meta: { callableName: handle.callableName, name: handle.name, source: handle.source },
  describedKeys: Object.keys(described).sort(),
  handleKeys: Object.keys(handle).sort(),
  client: clientDescribed.callableName,
  clientDescribed: { source: clientDescribed.source, declaration: clientDescribed.declaration, inputSchema: clientDescribed.inputSchema },
  core: { callableName: readHandle.callableName, path: readViaHandle.path },
  viaHandle: typeof viaHandle,
  sources: [...new Set(all.map((h) => h.source))],
};
`,
  );
  expect(status).toBe('completed');
  const value = (await resultValue(page)) as {
    names: string[];
    meta: Record<string, string>;
    describedKeys: string[];
    handleKeys: string[];
    client: string;
    clientDescribed: { source: string; declaration: string; inputSchema: { properties?: Record<string, unknown> } };
    core: { callableName: string; path: string };
    viaHandle: string;
    sources: string[];
  };
  expect(value.names).toContain('weather_lookup');
  expect(value.meta).toEqual({ callableName: 'weather_lookup', name: 'weather.lookup', source: 'bundled_plugin' });
  expect(value.describedKeys).toEqual(expect.arrayContaining(['callableName', 'declaration', 'description', 'name', 'source']));
  expect(value.describedKeys).not.toContain('id');
  expect(value.handleKeys).not.toContain('id');
  expect(value.client).toBe('ask_user');
  expect(value.clientDescribed.source).toBe('client');
  expect(value.clientDescribed.declaration).toContain('declare function ask_user(');
  expect(value.clientDescribed.inputSchema.properties).toHaveProperty('question');
  expect(value.core).toEqual({ callableName: 'read', path: 'README.md' });
  expect(value.viaHandle).toBe('object');
  expect(value.sources).not.toContain('mcp');
});

test('steps 9-10: MCP declarations without a tool call, MCP namespace calls, MCP absent from catalog discovery', async ({ page }) => {
  await openPlayground(page);
  await expect(page.locator('[data-testid=mcp-server]').first()).toHaveAttribute('data-state', 'connected');
  const status = await runCell(
    page,
    `const files = API.list('mcp');
const dts = API.read('mcp/demo.d.ts');
const sum = await MCP.demo.add({ a: 2, b: 3 });
const echo = await MCP.demo.echo({ text: 'hi' });
const all = await catalog.all();
const search = await catalog.search('echo text back');
return {
  files,
  declaresEcho: dts.includes('echo'),
  sum: sum.structuredContent,
  echo: echo.content,
  mcpInAll: all.filter((h) => h.source === 'mcp').length,
  mcpInSearch: search.filter((h) => h.source === 'mcp').length,
};
`,
  );
  expect(status).toBe('completed');
  const value = (await resultValue(page)) as Record<string, unknown>;
  expect(value.files).toEqual(expect.arrayContaining(['mcp/demo.d.ts']));
  expect(value.declaresEcho).toBe(true);
  expect(value.sum).toEqual({ sum: 5 });
  expect(value.echo).toEqual([{ type: 'text', text: 'hi' }]);
  expect(value.mcpInAll).toBe(0);
  expect(value.mcpInSearch).toBe(0);
});

test('step 11: a denied tool is greyed out with its rule and cannot be called', async ({ page }, testInfo) => {
  await openPlayground(page);
  await pickAgent(page, 'research');
  const denied = page.locator('[data-testid=catalog-tool][data-name=exec]');
  await expect(denied).toHaveAttribute('data-denied', 'true');
  await expect(denied).toContainText('denied by');
  await panelShot(page, 'catalog-panel', 'catalog-denied', testInfo);
  const status = await runCell(
    page,
    `const all = await catalog.all();
const found = await catalog.search('run a shell command exec');
return { global: typeof exec, inAll: all.some((h) => h.name === 'exec'), inSearch: found.some((h) => h.name === 'exec') };
`,
  );
  expect(status).toBe('completed');
  expect(await resultValue(page)).toEqual({ global: 'undefined', inAll: false, inSearch: false });
});

test('steps 12-14 and 16: a nested call resolves after exec waits; wait delivers it; the exported trajectory nests it under exec', async ({ page }) => {
  await openPlayground(page);
  const status = await runCell(page, `const r = await MCP.demo.slow({ ms: 3500 });\nconsole.log('restored with', r.content[0].text);\nreturn r.content[0].text;\n`);
  expect(status).toBe('waiting');
  const runId = await resultRunId(page);
  expect(await settle(page, () => waitingRun(page, runId).getByTestId('wait-button').click())).toBe('completed');
  expect(await resultValue(page)).toBe('waited 3500 ms');
  await expect(page.getByTestId('result-output')).toContainText('restored with waited 3500 ms');

  const download = page.waitForEvent('download');
  await page.getByTestId('trajectory-download').click();
  const file = await (await download).path();
  const trajectory = JSON.parse(readFileSync(file, 'utf8')) as {
    runId: string;
    calls: Array<{ tool: string; nested: Array<{ tool: string; kind: string; status: string }> }>;
  };
  expect(trajectory.runId).toBe(runId);
  expect(trajectory.calls.map((c) => c.tool)).toEqual(['exec', 'wait']);
  expect(trajectory.calls[0]?.nested).toEqual([expect.objectContaining({ tool: 'MCP.demo.slow', kind: 'mcp', status: 'ok' })]);
});

test('step 15: timeout, abort and snapshot expiry clean up runtime state (the board keeps none of them)', async ({ page }) => {
  await openPlayground(page);
  // timeout: an infinite loop fails with timeout and never reaches the waiting board
  expect(await runCell(page, 'for (;;) {}\n')).toBe('failed');
  await expect(page.getByTestId('result-error-code')).toHaveText('timeout');
  const loopRunId = await resultRunId(page);
  await expect(page.locator(`[data-testid=run-row][data-run-id="${loopRunId}"]`)).toHaveAttribute('data-state', 'failed');
  await expect(waitingRun(page, loopRunId)).toHaveCount(0);
  // abort: a parked run leaves the board, and a wait on it fails with the spec sentence
  expect(await runCell(page, 'await yield_control("park");\nreturn "never";\n')).toBe('waiting');
  const abortedRunId = await resultRunId(page);
  await waitingRun(page, abortedRunId).getByTestId('abort-button').click();
  await expect(waitingRun(page, abortedRunId)).toHaveCount(0);
  await expect(page.locator(`[data-testid=run-row][data-run-id="${abortedRunId}"]`)).toHaveAttribute('data-state', 'aborted');
  // expiry itself: past its TTL (2 s for this agent) the run expires without anyone acting, and leaves the board
  await pickAgent(page, 'ephemeral');
  expect(await runCell(page, 'await yield_control("park");\nreturn "never";\n')).toBe('waiting');
  const expiringRunId = await resultRunId(page);
  await expect(page.locator(`[data-testid=run-row][data-run-id="${expiringRunId}"]`)).toHaveAttribute('data-state', 'expired');
  await expect(waitingRun(page, expiringRunId)).toHaveCount(0);
  // the result panel follows the run: expired, no Wait to press (a wait on it would fail with the spec sentence,
  // "code mode run is unavailable or expired.": server/runs/spec-messages.test.ts)
  await expect(page.getByTestId('result-followed')).toHaveAttribute('data-followed', 'expired');
  await expect(page.getByTestId('result-status')).toHaveAttribute('data-status', 'expired');
  await expect(page.getByTestId('result-wait')).toHaveCount(0);
});

test("the Test plan tab's trajectory link selects a run the runs list holds: the plan's own turn, named, beside this turn's runs", async ({ page }) => {
  test.slow();
  await openPlayground(page);
  expect(await runCell(page, 'return 1;\n')).toBe('completed');
  const own = await resultRunId(page);
  await page.getByRole('tab', { name: 'Test plan' }).click();
  await page.getByRole('button', { name: 'run the spec plan' }).click();
  await expect(page.getByTestId('plan-step')).toHaveCount(16, { timeout: 240_000 });
  const step = page.locator('[data-testid="plan-step"][data-step="16"]');
  await step.getByRole('button', { name: 'trajectory', exact: true }).click();
  await expect(page.getByRole('tab', { name: 'Trajectory' })).toHaveAttribute('aria-selected', 'true');
  const shown = (await page.getByTestId('trajectory-panel').locator('h2 .font-mono').innerText()).trim();
  expect(shown).toMatch(/^run_/);
  // the list holds the shown run, selected and named as the plan's, from another turn; the page's own run stays listed
  const row = page.locator(`[data-testid=run-row][data-run-id="${shown}"]`);
  await expect(row).toHaveAttribute('aria-current', 'true');
  await expect(row.getByTestId('run-other-turn')).toHaveText('other turn');
  await expect(row.getByTestId('run-client')).toHaveText('test plan');
  await expect(page.locator(`[data-testid=run-row][data-run-id="${own}"]`)).toBeVisible();
  await expect(page.getByTestId('scope-all-turns')).not.toBeChecked();
});
