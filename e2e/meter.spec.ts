// Issue 18 in the page: the token meter of a run in the result panel, and the inferred output type of an MCP
// tool without an output schema (the demo server's `echo`) in the editor's hover.
import { expect, test } from '@playwright/test';
import { openPlayground, panelShot, resultRunId, runCell, setCell } from './helpers.ts';

test('the result panel shows the token meter of a run: both totals, ratio, break-even, per-turn bars, marked an estimate', async ({ page }, testInfo) => {
  await openPlayground(page);
  const status = await runCell(page, 'const r = await MCP.demo.echo({ text: "meter" });\nconst s = await Promise.all([sleep({ ms: 1 }), sleep({ ms: 2 })]);\nreturn [r.content[0].text, s.length]');
  expect(status).toBe('completed');
  const runId = await resultRunId(page);
  const meter = page.getByTestId('token-meter');
  await expect(meter).toBeVisible();
  // three tool calls a model would have made itself: one direct-calling turn each
  await expect(page.getByTestId('token-meter-direct')).toHaveAttribute('data-turns', '3');
  await expect(page.getByTestId('token-meter-code-mode')).toHaveAttribute('data-turns', '1');
  expect(Number(await meter.getAttribute('data-code-mode'))).toBeGreaterThan(0);
  expect(Number(await meter.getAttribute('data-direct'))).toBeGreaterThan(0);
  const totals = page.getByTestId('token-meter-totals');
  await expect(totals).toContainText('code mode');
  await expect(totals).toContainText('direct calling');
  await expect(totals).toContainText('3 calls');
  await expect(totals).toContainText('break-even');
  await expect(meter).toContainText('An estimate');
  await expect(meter).toContainText('o200k_base');
  // every model turn re-sends the context so far: the note gives the formula, the totals what was re-sent
  await expect(page.getByTestId('token-meter-note')).toContainText('re-sends the whole context so far');
  await expect(totals).toContainText('re-sent');
  await expect(totals).toContainText('over 3 turns');
  // the meter is the shown run's: its ratio matches the totals it prints
  const ratio = Number(await meter.getAttribute('data-ratio'));
  expect(ratio).toBeCloseTo(Number(await meter.getAttribute('data-direct')) / Number(await meter.getAttribute('data-code-mode')), 2);
  expect(runId).toMatch(/^run_/);
  await panelShot(page, 'result-panel', 'token-meter', testInfo);
});

test('an MCP tool without an output schema: after a call, the editor hover shows its inferred result type, marked inferred', async ({ page }) => {
  await openPlayground(page);
  expect(await runCell(page, 'const r = await MCP.demo.echo({ text: "first" });\nreturn r')).toBe('completed');
  const line = 'const again = await MCP.demo.echo({ text: "second" });';
  await setCell(page, `${line}\nreturn again.content`);
  const hover = page.locator('.monaco-hover-content');
  // the overlay arrives once the page has refetched this turn's inferred types after the call: put the caret
  // on `echo` and ask for the hover (Ctrl/Cmd+K Ctrl/Cmd+I), as a keyboard user would, until it says so
  await expect(async () => {
    await page.keyboard.press('ControlOrMeta+Home');
    for (let i = 0; i < line.indexOf('echo') + 2; i++) await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ControlOrMeta+K');
    await page.keyboard.press('ControlOrMeta+I');
    await expect(hover.filter({ hasText: 'inferred' }).first()).toBeVisible({ timeout: 3_000 });
  }).toPass({ timeout: 30_000 });
  const text = (await hover.allInnerTexts()).join('\n');
  expect(text).toContain('Inferred__demo__echo');
  expect(text).toContain('@inferred');
  expect(text).toContain('1 result observed in this turn');
  // the declared signature is still there (the inferred one is an added overload, not a replacement)
  expect(text).toContain('+1 overload');
});
