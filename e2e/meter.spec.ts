// Issue 18 in the page: the token meter of a run in the result panel, the inferred output type of an MCP
// tool without an output schema (the demo server's `echo`) in the editor's hover, and the box that lets the
// server typecheck use it.
import { expect, test } from './fixtures.ts';
import type { Page } from '@playwright/test';
import { openPlayground, panelShot, resultRunId, resultValue, runCell, setCell, POLL_INTERVALS_MS, PAGE_LOAD_TIMEOUT_MS } from './helpers.ts';

/** Puts the caret on `word` in the first line and asks for the hover (Ctrl/Cmd+K Ctrl/Cmd+I), as a keyboard user would, until it says "inferred". */
async function expectInferredHover(page: Page, firstLine: string, word: string): Promise<string> {
  const hover = page.locator('.monaco-hover-content');
  // the overlay arrives once the page has refetched this turn's inferred types after the call
  await expect(async () => {
    // the caret must be in the editor (a Run click leaves the focus on the button)
    await page.locator('.monaco-editor .view-lines').click();
    await page.keyboard.press('ControlOrMeta+Home');
    for (let i = 0; i < firstLine.indexOf(word) + 2; i++) await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ControlOrMeta+K');
    await page.keyboard.press('ControlOrMeta+I');
    await expect(hover.filter({ hasText: 'inferred' }).first()).toBeVisible({ timeout: 3_000 });
  }).toPass({ timeout: 30_000 });
  return (await hover.allInnerTexts()).join('\n');
}

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
  const text = await expectInferredHover(page, line, 'echo');
  expect(text).toContain('Inferred__demo__echo');
  expect(text).toContain('@inferred');
  expect(text).toContain('1 result observed in this turn');
  // the declared signature is still there (the inferred one is an added overload, not a replacement)
  expect(text).toContain('+1 overload');
});

test('the typecheck-inferred box: off, the server typecheck passes a cell that misuses an MCP result typed only by inference; on, it refuses it naming the inferred type', async ({ page }) => {
  await openPlayground(page);
  // echo declares no output: this call's result is what its type is inferred from
  expect(await runCell(page, 'const r = await MCP.demo.echo({ text: "seen" });\nreturn r')).toBe('completed');
  await page.getByTestId('language-ts').click();
  const typecheck = page.getByRole('checkbox', { name: 'typecheck', exact: true });
  const inferred = page.getByRole('checkbox', { name: 'typecheck uses "inferred" types' });
  // it applies only to the server typecheck: disabled until typecheck is on, then off by default
  await expect(inferred).toBeDisabled();
  await typecheck.check();
  await expect(inferred).toBeEnabled();
  await expect(inferred).not.toBeChecked();

  // treats echo's text as a number: the declared McpContent union allows the cast, so the cell runs ("41" + 1)
  const first = 'const r = await MCP.demo.echo({ text: "41" });';
  const misuse = `${first}\nconst item = r.content[0] as { text?: number };\nreturn (item.text ?? 0) + 1`;
  expect(await runCell(page, misuse)).toBe('completed');
  expect(await resultValue(page)).toBe('411');

  await inferred.check();
  // kept like the other turn settings: in the link
  await expect.poll(() => new URL(page.url()).hash, { intervals: POLL_INTERVALS_MS }).toContain('inferred=1');
  expect(await runCell(page, misuse)).toBe('failed');
  await expect(page.getByTestId('result-error-code')).toHaveText('invalid_input');
  const panel = page.getByTestId('result-panel');
  await expect(panel).toContainText('typecheck failed');
  // the inferred type of echo's content items (every observed item had string text)
  await expect(panel).toContainText("Conversion of type 'McpContent & { type: string; text: string; }'");
  await expect(panel).toContainText("Type 'string' is not comparable to type 'number'");

  // the editor still marks the type as inferred, not declared
  const text = await expectInferredHover(page, first, 'echo');
  expect(text).toContain('Inferred__demo__echo');
  expect(text).toContain('@inferred');

  // the box survives a reload (it lives in the URL hash)
  await page.reload();
  await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'live', { timeout: PAGE_LOAD_TIMEOUT_MS });
  await expect(page.getByRole('checkbox', { name: 'typecheck uses "inferred" types' })).toBeChecked();
});
