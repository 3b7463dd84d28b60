// E2E: the spec's 16-step E2E plan (maintainer notes) through the page: the Test plan tab runs the shared steps of
// server/testplan/ (the ones `codemode test-plan` and server/e2e-plan.test.ts run), and the panels that show what
// the steps check (the surface, the catalog's names and denials, the waiting board, the trajectory download).
import { readFileSync } from 'node:fs';
import { expect, test } from './fixtures.ts';
import { E2E_DISABLED_PORT } from './ports.ts';
import { PLAN_STEPS } from '../server/testplan/types.ts';
import { openPlayground, panelShot, pickAgent, resultRunId, resultValue, runCell, settle, waitingRun } from './helpers.ts';

async function surfaceToolNames(page: import('@playwright/test').Page): Promise<string[]> {
  return page.getByTestId('surface-tool').evaluateAll((els) => els.map((el) => el.getAttribute('data-name') ?? ''));
}

test('the surface panel with code mode off lists every effective tool in catalog order, the page\'s client tool last, and no wait', async ({ page }, testInfo) => {
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

test('the surface panel with code mode on lists exec, wait and the direct-only tool; the catalog panel groups every kind of source', async ({ page }) => {
  await openPlayground(page);
  await expect(page.getByTestId('surface-codemode')).toHaveAttribute('data-codemode', 'on');
  expect((await surfaceToolNames(page)).sort()).toEqual(['exec', 'image_generate', 'wait']);
  // The turn brings every kind of tool: core, plugins, MCP and the page's client tool.
  for (const source of ['core', 'bundled_plugin', 'external_plugin', 'mcp', 'client']) {
    await expect(page.getByTestId(`catalog-source-${source}`)).toBeVisible();
  }
  await expect(page.getByTestId('catalog-direct-only')).toContainText('image_generate');
});

test('the catalog panel shows each renamed tool under its projected name, and the quick index lists them', async ({ page }) => {
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
  expect(projected).toEqual({
    'llm-task': 'llm_task',
    'weather.lookup': 'weather_lookup',
    // a reserved word and a specialized global never keep their raw spelling; nor does an invalid first character
    delete: expect.stringMatching(/^delete_[0-9a-z]{6}$/),
    catalog: expect.stringMatching(/^catalog_[0-9a-z]{6}$/),
    '2fa': 'tool_2fa',
  });
  await page.getByTestId('surface-exec-description-toggle').click();
  const quickIndex = await page.getByTestId('surface-exec-description').innerText();
  for (const callable of Object.values(projected)) expect(quickIndex).toContain(callable);
});

test("the client tools editor: a client tool spelled like weather.lookup's projection claims the bare global; the plugin and reserved-name tools answer under their projected names", async ({ page }) => {
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

test('the catalog panel greys a denied tool out with the rule that denies it', async ({ page }, testInfo) => {
  await openPlayground(page);
  await pickAgent(page, 'research');
  const denied = page.locator('[data-testid=catalog-tool][data-name=exec]');
  await expect(denied).toHaveAttribute('data-denied', 'true');
  await expect(denied).toContainText('denied by');
  await panelShot(page, 'catalog-panel', 'catalog-denied', testInfo);
});

test("the waiting board's Wait delivers a slow MCP call to the parked cell, and the trajectory download nests it under exec", async ({ page }) => {
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

test('the waiting board keeps no timed-out, aborted or expired run, and the runs list shows how each ended', async ({ page }) => {
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

test("the Test plan tab runs the spec's 16 steps for the picked agent: every row passes, and each row's trajectory link opens its run beside this turn's runs", async ({ page }) => {
  test.slow();
  await openPlayground(page);
  // research: the playground's agent with a denied tool, so step 11 has something to check
  await pickAgent(page, 'research');
  expect(await runCell(page, 'return 1;\n')).toBe('completed');
  const own = await resultRunId(page);
  await page.getByRole('tab', { name: 'Test plan' }).click();
  await page.getByRole('button', { name: 'run the spec plan' }).click();
  await expect(page.getByTestId('plan-step')).toHaveCount(16, { timeout: 240_000 });
  await expect(page.getByTestId('testplan-summary')).toHaveText('16 passed, 0 failed, 0 not applicable (agent "research")');
  for (const [i, title] of PLAN_STEPS.entries()) {
    const row = page.locator(`[data-testid="plan-step"][data-step="${i + 1}"]`);
    await expect(row, `step ${i + 1}`).toHaveAttribute('data-verdict', 'pass');
    await expect(row).toContainText(`${i + 1}. ${title}`);
  }
  // the steps that ran a cell on this Gateway link their run (steps 1-6 read the surface; 15 runs on a sibling Gateway)
  const linked = await page.getByTestId('plan-step-run').evaluateAll((els) => els.map((el) => [el.closest('[data-step]')?.getAttribute('data-step'), el.getAttribute('data-run-id')]));
  expect(linked.map(([step]) => Number(step))).toEqual([7, 8, 9, 10, 11, 12, 13, 14, 16]);
  for (const [step, runId] of linked) {
    await page.getByRole('tab', { name: 'Test plan' }).click();
    await page.locator(`[data-testid="plan-step"][data-step="${step}"]`).getByRole('button', { name: 'trajectory', exact: true }).click();
    await expect(page.getByRole('tab', { name: 'Trajectory' })).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByTestId('trajectory-panel').locator('h2 .font-mono'), `step ${step}`).toHaveText(runId ?? '');
    await expect(page.getByTestId('trajectory-control').first()).toHaveAttribute('data-tool', 'exec');
    // the list holds the shown run, selected and named as the plan's, from another turn
    const row = page.locator(`[data-testid=run-row][data-run-id="${runId}"]`);
    await expect(row).toHaveAttribute('aria-current', 'true');
    await expect(row.getByTestId('run-other-turn')).toHaveText('other turn');
    await expect(row.getByTestId('run-client')).toHaveText('test plan');
  }
  // the page's own run stays listed, and following the links never switched the scope
  await expect(page.locator(`[data-testid=run-row][data-run-id="${own}"]`)).toBeVisible();
  await expect(page.getByTestId('scope-all-turns')).not.toBeChecked();
});
