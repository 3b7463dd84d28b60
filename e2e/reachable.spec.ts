// E2E: at 1440x900, 1280x720 and 900x800 the result, the approval prompt and the replay lab are visible, whole (no scroll
// box cuts them), apart (no panel over another) and reachable where the user is looking; geometry by boundingBox.
import { readFileSync } from 'node:fs';
import { expect, test } from './fixtures.ts';
import type { Locator, Page } from '@playwright/test';
import { expectApart, expectInViewport, expectNotClipped, openPlayground, resultRunId, runCell, setCell, settle, SETTLE_TIMEOUT_MS } from './helpers.ts';

// each size runs four cells, an approval, a comparison on three executors and a replay
test.slow();

const SIZES = [
  { width: 1440, height: 900 },
  { width: 1280, height: 720 },
  { width: 900, height: 800 },
];

const WEATHER_CELL = 'const w = await weather_lookup({ city: "Oslo" });\nreturn { city: w.city };\n';
/** Shell exec asks the operator first (the demo config marks it so). */
const APPROVAL_CELL = "const listing = await exec({ command: 'echo', args: ['reachable'] });\nreturn listing;\n";

function panels(page: Page): Record<string, Locator> {
  return {
    editor: page.getByTestId('editor-panel'),
    result: page.getByTestId('result-panel'),
    'replay lab': page.getByTestId('replay-lab'),
  };
}

/** Every pair of the shown panels is apart. */
async function expectPanelsApart(page: Page, extra: Record<string, Locator> = {}): Promise<void> {
  const all = Object.entries({ ...panels(page), ...extra });
  for (let i = 0; i < all.length; i++) for (let j = i + 1; j < all.length; j++) await expectApart(all[i]![1], all[j]![1], `${all[i]![0]} and ${all[j]![0]}`);
}

for (const size of SIZES) {
  const name = `${size.width}x${size.height}`;
  const wide = size.width >= 1280;

  test(`at ${name}: the result, the approval prompt and the replay lab are visible, whole, apart and reachable`, async ({ page }, testInfo) => {
    await page.setViewportSize(size);
    await openPlayground(page);
    const lab = page.getByTestId('replay-lab');
    // every detail tab whole (at 1280 px the last one ran past the runs column)
    for (const tab of ['Trajectory', 'Snapshot sizes', 'Session', 'Sources', 'Test plan']) await expectNotClipped(page.getByRole('tab', { name: tab }), `the ${tab} tab`);

    // Run: the result shows under the editor, its status in view without scrolling
    expect(await runCell(page, WEATHER_CELL)).toBe('completed');
    await expectInViewport(page, page.getByTestId('result-status'), 'the result status after Run');
    await expectNotClipped(page.getByTestId('result-status'), 'the result status');
    await expectPanelsApart(page);

    // an approval: the prompt is where the result says it is, in view, whole, apart from the result
    await setCell(page, APPROVAL_CELL);
    await page.getByRole('button', { name: 'Run ▸', exact: true }).click();
    const prompt = page.getByRole('region', { name: /Approvals pending/ });
    const approve = prompt.getByRole('button', { name: 'Approve', exact: true });
    await expect(approve).toBeVisible();
    await expectInViewport(page, approve, 'the Approve button');
    await expectNotClipped(approve, 'the Approve button');
    await expectApart(prompt, page.getByTestId('result-panel'), 'the approvals prompt and the result');
    await expectApart(prompt, page.getByTestId('editor-panel'), 'the approvals prompt and the editor');
    const note = page.getByTestId('result-awaiting-approval');
    const promptBox = (await prompt.boundingBox())!;
    const resultBox = (await page.getByTestId('result-panel').boundingBox())!;
    if (wide) {
      await expect(note).toContainText('the prompt is at the top of the runs column, on the right');
      expect(promptBox.x).toBeGreaterThanOrEqual(resultBox.x + resultBox.width);
    } else {
      await expect(note).toContainText('the prompt is just above this panel');
      expect(promptBox.y + promptBox.height).toBeLessThanOrEqual(resultBox.y);
    }
    // "show the prompt" brings it to the user, its Approve focused
    await note.scrollIntoViewIfNeeded();
    await note.getByRole('button', { name: 'show the prompt' }).click();
    await expect(approve).toBeFocused();
    await expectInViewport(page, approve, 'the Approve button after "show the prompt"');
    // the exec still running takes the approval and completes
    await approve.click();
    await expect(page.getByTestId('result-status')).toHaveAttribute('data-status', 'completed', { timeout: SETTLE_TIMEOUT_MS });

    // the replay lab: a bad seed's error comes into view, whole
    await setCell(page, WEATHER_CELL);
    expect(await settle(page, () => page.getByRole('button', { name: 'Run ▸', exact: true }).click())).toBe('completed');
    const recordedId = await resultRunId(page);
    await lab.getByLabel('seed').fill('not a seed');
    await lab.getByRole('button', { name: 'Run with seed' }).click();
    const error = lab.getByRole('alert');
    await expect(error).toContainText('seed: write an integer from 0 to 4294967295');
    await expectInViewport(page, error, 'the bad seed error');
    await expectNotClipped(error, 'the bad seed error');
    await lab.getByLabel('seed').fill('');

    // a cassette of another cell than the editor's asks which to replay: the question comes into view, focused
    await lab.scrollIntoViewIfNeeded();
    await expect(lab.getByTestId('run-seed')).toBeVisible();
    const [download] = await Promise.all([page.waitForEvent('download'), lab.getByRole('button', { name: 'download cassette' }).click()]);
    const file = testInfo.outputPath(`${recordedId}.cassette.json`);
    await download.saveAs(file);
    expect((JSON.parse(readFileSync(file, 'utf8')) as { runId?: string }).runId).toBe(recordedId);
    await setCell(page, `// edited\n${WEATHER_CELL}`);
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), lab.getByRole('button', { name: 'replay from cassette…' }).click()]);
    await chooser.setFiles(file);
    const choice = page.getByRole('group', { name: 'which cell to replay' });
    const replayRecorded = choice.getByRole('button', { name: 'replay the recorded cell' });
    await expect(replayRecorded).toBeFocused();
    for (const button of ['replay the recorded cell', 'replay the current cell', 'cancel']) {
      await expectInViewport(page, choice.getByRole('button', { name: button }), `"${button}"`);
      await expectNotClipped(choice.getByRole('button', { name: button }), `"${button}"`);
    }
    // replaying brings the result back into view
    expect(await settle(page, () => replayRecorded.click())).toBe('completed');
    await expectInViewport(page, page.getByTestId('result-status'), 'the result status after a replay from the lab');

    // save as test: the note comes into view, whole
    await lab.scrollIntoViewIfNeeded();
    const saveAsTest = lab.getByRole('button', { name: 'save as test' });
    await expect(saveAsTest).toBeEnabled();
    const downloads: string[] = [];
    page.on('download', (d) => downloads.push(d.suggestedFilename()));
    await saveAsTest.click();
    const saved = lab.getByTestId('save-as-test-done');
    await expect(saved).toContainText('put both in replays/');
    await expectInViewport(page, saved, 'the save-as-test note');
    await expectNotClipped(saved, 'the save-as-test note');
    await expect.poll(() => downloads.length, { timeout: SETTLE_TIMEOUT_MS }).toBe(2);

    // with the comparison open, nothing overlaps, and the lab is still whole where the column scrolls to it
    await page.getByRole('button', { name: 'Run on all executors' }).click();
    const compare = page.getByTestId('compare-panel');
    await expect(compare.getByTestId('compare-column')).toHaveCount(3, { timeout: SETTLE_TIMEOUT_MS * 2 });
    await expectPanelsApart(page, { comparison: compare });
    await lab.scrollIntoViewIfNeeded();
    await expectInViewport(page, lab, 'the replay lab');
    await expectNotClipped(lab, 'the replay lab');
    const body = await lab.evaluate((el) => {
      const b = el.lastElementChild as HTMLElement;
      return { scroll: b.scrollHeight, client: b.clientHeight };
    });
    expect(body.scroll, 'the replay lab body keeps all its content without scrolling').toBeLessThanOrEqual(body.client + 1);
    await page.getByTestId('result-panel').scrollIntoViewIfNeeded();
    await expectNotClipped(page.getByTestId('result-status'), 'the result status beside the comparison');
  });
}
