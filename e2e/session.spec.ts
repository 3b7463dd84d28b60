// E2E: the Session panel (store and transcript of the current turn's session) follows cells as they complete.
import { expect, test } from './fixtures.ts';
import { openPlayground, panelShot, resultRunId, resultValue, runCell, waitingRun } from './helpers.ts';

test('a stored value shows in the Session panel, and the transcript shows both exec calls with their store rows', async ({ page }, testInfo) => {
  await openPlayground(page);
  await page.getByTestId('tab-session').click();
  const panel = page.getByTestId('session-panel');
  await expect(panel).toBeVisible();
  await expect(panel.getByTestId('session-store-empty')).toBeVisible();

  expect(await runCell(page, 'await store("greeting", "hi");\nreturn "saved";\n')).toBe('completed');
  // no reload: the run's events refresh the panel
  const row = panel.locator('[data-testid=session-store-row][data-key=greeting]');
  await expect(row.getByTestId('session-store-value')).toHaveText('"hi"');
  await expect(row).toHaveAttribute('data-network', 'false');

  expect(await runCell(page, 'const greeting = await load("greeting");\nreturn { greeting };\n')).toBe('completed');
  expect(await resultValue(page)).toEqual({ greeting: 'hi' });

  const calls = panel.locator('[data-testid=transcript-call][data-tool=exec]');
  await expect(calls).toHaveCount(2);
  await expect(calls.nth(0)).toHaveAttribute('data-status', 'completed');
  await expect(calls.nth(1)).toHaveAttribute('data-status', 'completed');
  await expect(calls.nth(0).getByTestId('transcript-nested')).toHaveAttribute('data-tool', 'store');
  await expect(calls.nth(1).getByTestId('transcript-nested')).toHaveAttribute('data-tool', 'load');
  await expect(panel.getByTestId('transcript-store-commit')).toHaveCount(1);

  // the cell source is kept collapsed until asked for
  const source = calls.nth(1).getByTestId('transcript-source');
  await expect(source.locator('pre')).toBeHidden();
  await source.locator('summary').click();
  await expect(source.locator('pre')).toContainText('load("greeting")');
  await panelShot(page, 'session-panel', 'session', testInfo);
  await page.screenshot({ path: 'e2e-artifacts/panels/page-session.png' });
});

test('a value stored after a web search carries the network flag; a new session starts with an empty store', async ({ page }) => {
  await openPlayground(page);
  await page.getByTestId('tab-session').click();
  const panel = page.getByTestId('session-panel');
  expect(await runCell(page, 'const r = await web_search({ query: "QuickJS", limit: 1 });\nawait store("hits", r.results.length);\nreturn 1;\n')).toBe('completed');
  const row = panel.locator('[data-testid=session-store-row][data-key=hits]');
  await expect(row).toHaveAttribute('data-network', 'true');
  await expect(row.getByTestId('session-store-network')).toBeVisible();

  const before = await page.getByTestId('turn-info').innerText();
  await page.getByTestId('new-session').click();
  await expect(page.getByTestId('turn-info')).not.toHaveText(before);
  await expect(panel.getByTestId('session-store-empty')).toBeVisible();
  await expect(panel.getByTestId('session-transcript-empty')).toBeVisible();
});

test('branch here at the first cell\'s result: a later cell loads the value stored before the branch', async ({ page }, testInfo) => {
  await openPlayground(page);
  await page.getByTestId('tab-session').click();
  const panel = page.getByTestId('session-panel');
  const value = panel.locator('[data-testid=session-store-row][data-key=k]').getByTestId('session-store-value');

  expect(await runCell(page, 'await store("k", "v1");\nreturn "first";\n')).toBe('completed');
  await expect(value).toHaveText('"v1"');
  expect(await runCell(page, 'await store("k", "v2");\nreturn "second";\n')).toBe('completed');
  await expect(value).toHaveText('"v2"');
  const calls = panel.locator('[data-testid=transcript-call][data-tool=exec]');
  await expect(calls).toHaveCount(2);
  // the leaf has no branch action of its own: branching there changes nothing
  await expect(calls.nth(1).getByTestId('transcript-leaf')).toBeVisible();
  await expect(calls.nth(1).getByTestId('transcript-branch')).toHaveCount(0);

  await calls.nth(0).getByTestId('transcript-branch').click();
  await expect(panel.getByTestId('session-action-done')).toContainText('Branched at exec');
  await expect(calls).toHaveCount(1);
  await expect(calls.nth(0).getByTestId('transcript-leaf')).toBeVisible();
  await expect(value).toHaveText('"v1"');

  expect(await runCell(page, 'const k = await load("k");\nreturn { k };\n')).toBe('completed');
  expect(await resultValue(page)).toEqual({ k: 'v1' });
  await expect(calls).toHaveCount(2);
  await expect(panel.getByTestId('transcript-store-commit')).toHaveCount(1);
  await panelShot(page, 'session-panel', 'session-branch', testInfo);
});

test('compact keeps the store; branch and compact are refused with a clear error while a run of the session waits', async ({ page }, testInfo) => {
  await openPlayground(page);
  await page.getByTestId('tab-session').click();
  const panel = page.getByTestId('session-panel');
  expect(await runCell(page, 'await store("kept", 7);\nreturn 1;\n')).toBe('completed');

  expect(await runCell(page, 'await sleep({ ms: 60000 });\nreturn "never";\n')).toBe('waiting');
  const runId = await resultRunId(page);
  await panel.locator('[data-testid=transcript-call][data-tool=exec]').nth(0).getByTestId('transcript-branch').click();
  const refused = panel.getByTestId('session-action-error');
  await expect(refused).toContainText('Cannot branch this session');
  await expect(refused).toContainText(runId);
  await expect(refused).toContainText('abort it');
  await panelShot(page, 'session-panel', 'session-branch-refused', testInfo);

  await waitingRun(page, runId).getByTestId('abort-button').click();
  await expect(waitingRun(page, runId)).toHaveCount(0);
  await panel.getByTestId('session-compact').click();
  await panel.getByTestId('session-compact-summary').fill('the user keeps a counter in "kept"');
  await panel.getByTestId('session-compact-submit').click();
  await expect(panel.getByTestId('session-action-done')).toContainText('Compacted');
  await expect(refused).toHaveCount(0);
  const compaction = panel.getByTestId('transcript-compaction');
  await expect(compaction).toContainText('the user keeps a counter');
  await expect(compaction.getByTestId('transcript-leaf')).toBeVisible();
  await expect(panel.locator('[data-testid=session-store-row][data-key=kept]').getByTestId('session-store-value')).toHaveText('7');

  expect(await runCell(page, 'return await load("kept");\n')).toBe('completed');
  expect(await resultValue(page)).toBe(7);
});
