// E2E: every example cell in the picker runs against the shipped demo catalog, as a new user would try them.
import { expect, test } from '@playwright/test';
import { EXAMPLES } from '../components/playground/examples.ts';
import { callSeq, openPlayground, settledAfter } from './helpers.ts';

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

for (const example of EXAMPLES) {
  test(`example "${example.title}" runs`, async ({ page }) => {
    const expected = EXPECTED[example.id];
    expect(expected, `add ${example.id} to EXPECTED`).toBeDefined();
    await openPlayground(page);
    await page.getByTestId('example-select').selectOption(example.id);
    await expect(page.getByTestId(example.language === 'typescript' ? 'language-ts' : 'language-js')).toHaveAttribute('aria-pressed', 'true');
    const before = await callSeq(page);
    await page.getByTestId('run-button').click();
    if (expected?.approve) await page.getByTestId('approval').getByTestId('approval-approve').click();
    expect(await settledAfter(page, before)).toBe(expected?.status);
    if (expected?.code) await expect(page.getByTestId('result-error-code')).toHaveText(expected.code);
    if (expected?.status === 'completed') await expect(page.getByTestId('result-value')).toBeVisible();
  });
}
