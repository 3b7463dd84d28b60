// Shared E2E steps: open the playground, put a cell in Monaco, run it, read the result, screenshot a panel.
import { mkdirSync } from 'node:fs';
import { expect } from '@playwright/test';
import type { Locator, Page, TestInfo } from '@playwright/test';

export const PANEL_SHOTS_DIR = 'e2e-artifacts/panels';

/**
 * The cap on one page load (until a turn is prepared and live updates flow): a limit for a hung page, roomier than
 * the suite's expect timeout because a load is the costliest step with two workers beside CPU-bound load.
 */
export const PAGE_LOAD_TIMEOUT_MS = 60_000;

/** Opens the page and waits until a turn is prepared and live updates flow. */
export async function openPlayground(page: Page, path = '/'): Promise<void> {
  await page.goto(path);
  await playgroundReady(page);
}

/** Waits, after a load or reload, until a turn is prepared and live updates flow. */
export async function playgroundReady(page: Page): Promise<void> {
  await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'live', { timeout: PAGE_LOAD_TIMEOUT_MS });
  await expect(page.getByTestId('run-button')).toBeEnabled({ timeout: PAGE_LOAD_TIMEOUT_MS });
  await page.locator('.monaco-editor .view-lines').waitFor({ timeout: PAGE_LOAD_TIMEOUT_MS });
}

export async function pickAgent(page: Page, agentId: string): Promise<void> {
  const before = await page.getByTestId('turn-info').innerText();
  await page.getByTestId('agent-select').selectOption(agentId);
  await expect(page.getByTestId('turn-info')).not.toHaveText(before);
  await expect(page.getByTestId('run-button')).toBeEnabled();
}

/**
 * Replaces the cell by pasting it, as a user would. Typed or inserted text goes through Monaco's
 * auto-indent and bracket auto-closing, which re-indents lines and adds stray closing braces.
 */
export async function setCell(page: Page, code: string): Promise<void> {
  await page.locator('.monaco-editor .view-lines').click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.evaluate((text) => navigator.clipboard.writeText(text), code);
  await page.keyboard.press('ControlOrMeta+V');
  await expect(page.locator('.monaco-editor .view-lines')).toContainText(code.trim().split('\n')[0] ?? '');
}

/** Runs the cell with the Run button and waits for exec to settle; returns the result's status. */
export async function runCell(page: Page, code: string, opts: { timeoutMs?: number } = {}): Promise<string> {
  await setCell(page, code);
  return settle(page, () => page.getByTestId('run-button').click(), opts.timeoutMs);
}

/** Number of exec/wait calls the page has started (the result panel's call sequence). */
export async function callSeq(page: Page): Promise<number> {
  return Number((await page.getByTestId('result-seq').getAttribute('data-seq')) ?? '0');
}

/**
 * expect.poll's intervals for the suite: its default backs off to one read a second, so a state that arrived
 * right after a read went unseen for up to a second. Cheap reads (an attribute, a variable) can come often.
 */
export const POLL_INTERVALS_MS = [100, 250];

/** The default cap on one exec/wait: its budget (2.5 s in the suite's config) plus a loaded machine's slowness. */
export const SETTLE_TIMEOUT_MS = 45_000;

/** Waits for a call started after `before` (see callSeq) to settle; returns its status. */
export async function settledAfter(page: Page, before: number, timeoutMs = SETTLE_TIMEOUT_MS): Promise<string> {
  await expect.poll(() => callSeq(page), { timeout: timeoutMs, intervals: POLL_INTERVALS_MS }).toBeGreaterThan(before);
  const status = page.getByTestId('result-status');
  await expect(status).toHaveAttribute('data-status', /^(completed|failed|waiting)$/, { timeout: timeoutMs });
  return (await status.getAttribute('data-status')) ?? '';
}

/** Does `action` (a click that starts exec or wait) and returns the status that call settles with. */
export async function settle(page: Page, action: () => Promise<unknown>, timeoutMs?: number): Promise<string> {
  const before = await callSeq(page);
  await action();
  return settledAfter(page, before, timeoutMs);
}

/** The run the last result belongs to. */
export async function resultRunId(page: Page): Promise<string> {
  const id = await page.getByTestId('result-call').getAttribute('data-run-id');
  expect(id, 'the result names its run').toBeTruthy();
  return id ?? '';
}

/** The value of a completed result, parsed from the model-text view (compact JSON, maybe wrapped as untrusted). */
export async function resultValue(page: Page): Promise<unknown> {
  await page.getByTestId('result-raw-toggle').click();
  const text = await page.getByTestId('result-raw').innerText();
  await page.getByTestId('result-raw-toggle').click();
  const wrapped = text.match(/<<<EXTERNAL_UNTRUSTED_CONTENT>>>\n([\s\S]*)\n<<<END_EXTERNAL_UNTRUSTED_CONTENT>>>/);
  const parsed = JSON.parse(wrapped?.[1] ?? text) as { value?: unknown };
  return parsed.value;
}

export function waitingRun(page: Page, runId: string): Locator {
  return page.locator(`[data-testid=waiting-run][data-run-id="${runId}"]`);
}

/** Saves a screenshot of one panel as a test artifact (attached to the report and kept under e2e-artifacts/panels). */
export async function panelShot(page: Page, testId: string, name: string, testInfo: TestInfo): Promise<void> {
  mkdirSync(PANEL_SHOTS_DIR, { recursive: true });
  const body = await page.getByTestId(testId).screenshot({ path: `${PANEL_SHOTS_DIR}/${name}.png` });
  await testInfo.attach(name, { body, contentType: 'image/png' });
}

/**
 * Geometry of what the user must see (boundingBox, not pixels): `locator` lies inside the viewport as the page is
 * scrolled now (the test did not scroll to it).
 */
export async function expectInViewport(page: Page, locator: Locator, what: string): Promise<void> {
  const box = await locator.boundingBox();
  const viewport = page.viewportSize();
  expect(box, `${what} is laid out`).toBeTruthy();
  if (!box || !viewport) return;
  const edges = { top: Math.round(box.y), left: Math.round(box.x), bottom: Math.round(box.y + box.height), right: Math.round(box.x + box.width) };
  expect(edges.top >= 0 && edges.left >= 0 && edges.bottom <= viewport.height && edges.right <= viewport.width, `${what} inside the ${viewport.width}x${viewport.height} viewport: ${JSON.stringify(edges)}`).toBe(true);
}

/** No scroll box around `locator` cuts any of it off: every ancestor that clips (overflow other than visible) holds it whole. */
export async function expectNotClipped(locator: Locator, what: string): Promise<void> {
  const clippedBy = await locator.evaluate((el) => {
    const box = el.getBoundingClientRect();
    const cut: string[] = [];
    for (let a = el.parentElement; a; a = a.parentElement) {
      const style = getComputedStyle(a);
      if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
      const r = a.getBoundingClientRect();
      if (box.top < r.top - 1 || box.bottom > r.bottom + 1 || box.left < r.left - 1 || box.right > r.right + 1) {
        const span = (b: DOMRect) => `x ${Math.round(b.left)}..${Math.round(b.right)}, y ${Math.round(b.top)}..${Math.round(b.bottom)}`;
        cut.push(`${a.tagName.toLowerCase()}${a.dataset.testid ? `[${a.dataset.testid}]` : ''} (${span(r)}) holds ${span(box)}`);
      }
    }
    return cut;
  });
  expect(clippedBy, `${what} is cut off by a scroll box`).toEqual([]);
}

/** Two boxes on the page do not overlap. */
export async function expectApart(a: Locator, b: Locator, what: string): Promise<void> {
  const [x, y] = [await a.boundingBox(), await b.boundingBox()];
  expect(x && y, `${what}: both laid out`).toBeTruthy();
  if (!x || !y) return;
  const overlap = x.x < y.x + y.width - 1 && y.x < x.x + x.width - 1 && x.y < y.y + y.height - 1 && y.y < x.y + x.height - 1;
  expect(overlap, `${what} overlap: ${JSON.stringify([x, y])}`).toBe(false);
}
