// E2E: every example cell in the picker runs against the shipped demo catalog, as a new user would try them, and
// answers what the facts say (e2e/example-facts.ts: the host's clock and date, the demo tools called directly, `ls`).
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';
import { EXAMPLES } from '../components/playground/examples.ts';
import { exampleProblems } from './example-facts.ts';
import { callSeq, openPlayground, resultRunId, resultValue, settle, settledAfter, waitingRun } from './helpers.ts';

/**
 * How each example first ends under the suite's config (2.5 s exec deadline), and what the page does next: Wait until
 * the sleep completes, answer the client tool then Wait, approve the shell exec.
 */
const EXPECTED: Record<string, { status: string; approve?: boolean; code?: string; answer?: string }> = {
  'parallel-search': { status: 'completed' },
  'read-grep': { status: 'completed' },
  'sleep-wait': { status: 'waiting' },
  clock: { status: 'completed' },
  'search-describe': { status: 'completed' },
  'store-load': { status: 'completed' },
  'mcp-call': { status: 'completed' },
  'infinite-loop': { status: 'failed', code: 'timeout' },
  'client-tool': { status: 'waiting', answer: 'yes, ship it' },
  approval: { status: 'completed', approve: true },
  typescript: { status: 'completed' },
};

/** The output lines' text of the result shown, read from its model text (as resultValue reads the value). */
async function outputLines(page: Page): Promise<string[]> {
  await page.getByTestId('result-raw-toggle').click();
  const text = await page.getByTestId('result-raw').innerText();
  await page.getByTestId('result-raw-toggle').click();
  const wrapped = text.match(/<<<EXTERNAL_UNTRUSTED_CONTENT>>>\n([\s\S]*)\n<<<END_EXTERNAL_UNTRUSTED_CONTENT>>>/);
  const parsed = JSON.parse(wrapped?.[1] ?? text) as { output?: Array<{ text: string }> };
  return (parsed.output ?? []).map((o) => o.text);
}

test('every example cell is covered by this test', () => {
  expect(EXAMPLES.map((e) => e.id).sort()).toEqual(Object.keys(EXPECTED).sort());
});

// One page tries them all in turn, as a new user would: a page load costs more than most examples.
test('every example cell runs in turn on one page and answers what the facts say', async ({ page }) => {
  // the test's cap: one page load plus each example's (a hung page's) limit
  test.setTimeout(60_000 + EXAMPLES.length * 60_000);
  await openPlayground(page);
  const menu = page.getByTestId('example-select');
  let counter: number | undefined;
  for (const example of EXAMPLES) {
    await test.step(`example "${example.title}" runs and tells the truth`, async () => {
      const expected = EXPECTED[example.id];
      expect(expected, `add ${example.id} to EXPECTED`).toBeDefined();
      await menu.selectOption(example.id);
      await expect(menu).toHaveValue(example.id);
      // the editor holds this example's cell, not the one before it
      await expect(page.locator('.monaco-editor .view-lines')).toContainText(example.code.trim().split('\n')[0] ?? '');
      await expect(page.getByTestId(example.language === 'typescript' ? 'language-ts' : 'language-js')).toHaveAttribute('aria-pressed', 'true');
      const before = await callSeq(page);
      const startedAt = Date.now();
      await page.getByTestId('run-button').click();
      if (expected?.approve) await page.getByTestId('approval').getByTestId('approval-approve').click();
      let status = await settledAfter(page, before);
      expect(status).toBe(expected?.status);
      if (expected?.code) await expect(page.getByTestId('result-error-code')).toHaveText(expected.code);
      if (status === 'failed') return;
      // a waiting run is taken to its end as a user would: answer its client call, press Wait until it completes
      const runId = await resultRunId(page);
      for (let waits = 0; status === 'waiting' && waits < 20; waits++) {
        if (expected?.answer !== undefined) {
          const form = waitingRun(page, runId).getByTestId('client-call');
          await form.getByTestId('client-call-input').fill(JSON.stringify({ answer: expected.answer }));
          status = await settle(page, () => form.getByTestId('client-call-send-wait').click());
        } else {
          status = await settle(page, () => page.getByTestId('result-wait').click());
        }
      }
      expect(status).toBe('completed');
      const endedAt = Date.now();
      await expect(page.getByTestId('result-value')).toBeVisible();
      const value = await resultValue(page);
      const problems = await exampleProblems(example.id, {
        value,
        output: await outputLines(page),
        startedAt,
        endedAt,
        ...(expected?.answer !== undefined ? { answer: expected.answer } : {}),
        ...(counter !== undefined ? { counterBefore: counter } : {}),
      });
      expect(problems, `${example.id} answered ${JSON.stringify(value)}`).toEqual([]);
      if (example.id === 'store-load') {
        // run it again: it counts up from what it stored
        counter = (value as { now: number }).now;
        expect(await settle(page, () => page.getByTestId('run-button').click())).toBe('completed');
        const again = await resultValue(page);
        expect(await exampleProblems(example.id, { value: again, output: [], startedAt, endedAt: Date.now(), counterBefore: counter })).toEqual([]);
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
