// E2E: the Session panel (store and transcript of the current turn's session) follows cells as they complete.
import { expect, test } from '@playwright/test';
import { openPlayground, panelShot, resultValue, runCell } from './helpers.ts';

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
