// E2E (issue 15): "Run on all executors" runs the editor's cell on quickjs, node and quickjs-emscripten, each in its own run, side by side.
import { expect, test } from './fixtures.ts';
import { openPlayground, PANEL_SHOTS_DIR, setCell } from './helpers.ts';

// A tool call, a wait (each executor parks its own way), random draws (one seed: alike everywhere), and a value one
// engine gives differently: the stack overflow is a RangeError on every executor, but Bellard QuickJS words it its own way.
const CELL = [
  'const w = await weather_lookup({ city: "Oslo" });',
  'await yield_control("compare");',
  'let overflow;',
  'try { (function f() { f() })() } catch (e) { overflow = e.name + ": " + e.message }',
  'return { city: w.city, overflow, draws: [Math.random(), Math.random()] };',
  '',
].join('\n');

test('one cell on all three executors: three columns with status, value and a diff where it differs, duration, nested calls, parked bytes, cold or warm', async ({ page }) => {
  // three runs (at once, as far as the machine has processors), two of them on executors this server starts now: a
  // cap for a hung page on a loaded machine, not a timing
  test.setTimeout(240_000);
  await openPlayground(page);
  await setCell(page, CELL);
  await page.getByTestId('compare-button').click();
  const panel = page.getByTestId('compare-panel');
  const columns = panel.getByTestId('compare-column');
  await expect(columns).toHaveCount(3, { timeout: 180_000 });
  await expect(columns.nth(0)).toHaveAttribute('data-executor', 'node');
  await expect(columns.nth(1)).toHaveAttribute('data-executor', 'quickjs');
  await expect(columns.nth(2)).toHaveAttribute('data-executor', 'quickjs-emscripten');

  for (let i = 0; i < 3; i++) {
    const col = columns.nth(i);
    await expect(col).toHaveAttribute('data-status', 'completed');
    await expect(col.getByTestId('compare-status')).toHaveText('completed');
    await expect(col.getByTestId('compare-duration')).toContainText('over 2 calls');
    await expect(col.getByTestId('compare-nested')).toContainText(/^2/);
    await expect(col.getByTestId('compare-start')).toHaveText(/^(cold|warm)$/);
  }
  // what each parked: a stored snapshot (quickjs) or a live VM's estimate (node, quickjs-emscripten)
  await expect(columns.nth(1).getByTestId('compare-parked')).toContainText('stored snapshot');
  await expect(columns.nth(0).getByTestId('compare-parked')).toContainText('live (estimate)');
  await expect(columns.nth(2).getByTestId('compare-parked')).toContainText('live (estimate)');
  // the playground's own executor (quickjs) was warmed at start
  await expect(columns.nth(1).getByTestId('compare-start')).toHaveText('warm');

  // node and quickjs agree; Bellard QuickJS words the stack overflow differently (the same RangeError), shown as a diff
  await expect(columns.nth(0).getByTestId('compare-value')).toContainText('"overflow": "RangeError: Maximum call stack size exceeded"');
  await expect(columns.nth(1).getByTestId('compare-value')).toContainText('"overflow": "RangeError: Maximum call stack size exceeded"');
  const diff = columns.nth(2).getByTestId('compare-diff');
  await expect(diff.locator('[data-mark="+"]')).toHaveText(/"overflow": "RangeError: stack overflow"/);
  await expect(diff.locator('[data-mark="-"]')).toHaveText(/"overflow": "RangeError: Maximum call stack size exceeded"/);
  // one seed for every row: the random draws are not part of the diff
  await expect(diff.locator('[data-mark="+"]')).toHaveCount(1);
  await expect(columns.nth(2)).toContainText('differs from node');

  await panel.screenshot({ path: `${PANEL_SHOTS_DIR}/compare-executors.png` });
  // each column was its own run: the runs list holds three more completed runs of this cell
  await page.getByTestId('compare-close').click();
  await expect(panel).toHaveCount(0);
});
