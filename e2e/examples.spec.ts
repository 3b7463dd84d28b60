// E2E: every example cell in the picker runs against the shipped demo catalog, as a new user would try them.
import { expect, test } from './fixtures.ts';
import { EXAMPLES } from '../components/playground/examples.ts';
import { callSeq, openPlayground, resultRunId, settledAfter, waitingRun } from './helpers.ts';

/** What each example should end in under the suite's config (2.5 s exec deadline). */
const EXPECTED: Record<string, { status: string; approve?: boolean; code?: string }> = {
  'parallel-search': { status: 'completed' },
  'read-grep': { status: 'completed' },
  'sleep-wait': { status: 'waiting' },
  'search-describe': { status: 'completed' },
  'store-load': { status: 'completed' },
  'mcp-call': { status: 'completed' },
  'infinite-loop': { status: 'failed', code: 'timeout' },
  'client-tool': { status: 'waiting' },
  approval: { status: 'completed', approve: true },
  typescript: { status: 'completed' },
};

test('every example cell is covered by this test', () => {
  expect(EXAMPLES.map((e) => e.id).sort()).toEqual(Object.keys(EXPECTED).sort());
});

// One page tries them all in turn, as a new user would: a page load costs more than most examples.
test('every example cell runs in turn on one page and ends as expected', async ({ page }) => {
  // the test's cap: one page load plus each example's (a hung page's) limit
  test.setTimeout(60_000 + EXAMPLES.length * 60_000);
  await openPlayground(page);
  const menu = page.getByTestId('example-select');
  for (const example of EXAMPLES) {
    await test.step(`example "${example.title}" runs`, async () => {
      const expected = EXPECTED[example.id];
      expect(expected, `add ${example.id} to EXPECTED`).toBeDefined();
      await menu.selectOption(example.id);
      await expect(menu).toHaveValue(example.id);
      // the editor holds this example's cell, not the one before it
      await expect(page.locator('.monaco-editor .view-lines')).toContainText(example.code.trim().split('\n')[0] ?? '');
      await expect(page.getByTestId(example.language === 'typescript' ? 'language-ts' : 'language-js')).toHaveAttribute('aria-pressed', 'true');
      const before = await callSeq(page);
      await page.getByTestId('run-button').click();
      if (expected?.approve) await page.getByTestId('approval').getByTestId('approval-approve').click();
      expect(await settledAfter(page, before)).toBe(expected?.status);
      if (expected?.code) await expect(page.getByTestId('result-error-code')).toHaveText(expected.code);
      if (expected?.status === 'completed') await expect(page.getByTestId('result-value')).toBeVisible();
      if (expected?.status === 'waiting') {
        // Each example starts as on a fresh page, with no run of this turn still waiting: a pending call of a
        // sequential tool (the client tool's) would hold the next example's sequential calls (the shell exec).
        const card = waitingRun(page, await resultRunId(page));
        await card.getByTestId('abort-button').click();
        await expect(card).toHaveCount(0);
      }
    });
  }
});

test('editing a loaded example resets the menu to "Examples…" and drops example= from the URL', async ({ page }) => {
  await openPlayground(page);
  const menu = page.getByRole('combobox', { name: 'Examples' });
  const [example] = EXAMPLES;
  await menu.selectOption(example?.id ?? '');
  await expect.poll(() => new URL(page.url()).hash).toContain(`example=${example?.id}`);
  await page.locator('.monaco-editor .view-lines').click();
  await page.keyboard.press('ControlOrMeta+End');
  await page.keyboard.type('// edited');
  await expect(menu).toHaveValue('');
  await expect(menu.locator('option:checked')).toHaveText('Examples…');
  await expect.poll(() => new URL(page.url()).hash).not.toContain('example=');
});
