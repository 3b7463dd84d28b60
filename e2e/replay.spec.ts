// E2E (issue 17, replay lab): fork a waiting run from the waiting board with an edited reply and see both runs; replay a downloaded cassette.
import { readFileSync } from 'node:fs';
import { expect, test } from './fixtures.ts';
import type { Locator, Page } from '@playwright/test';
import { expectNotClipped, openPlayground, resultRunId, resultValue, runCell, setCell, settle, waitingRun } from './helpers.ts';

// each test runs two or three cells and a fork or a replay: on a loaded machine that outlasts one cell's 90 s
test.slow();

function runRow(page: Page, runId: string) {
  return page.locator(`[data-testid=run-row][data-run-id="${runId}"]`);
}

/** The element shows its whole text: nothing cut by its box (truncate, a squeezed flex item). */
async function expectWholeText(locator: Locator): Promise<void> {
  expect(await locator.evaluate((el) => el.scrollWidth <= el.clientWidth + 1 && el.clientWidth > 0)).toBe(true);
}

test('fork a waiting run from the board with an edited reply: the fork completes with it, the original still waits', async ({ page }) => {
  // the board at 1440 px: each card's header says why it waits, how many calls, and when it expires (a fork too)
  await page.setViewportSize({ width: 1440, height: 900 });
  await openPlayground(page);
  // the sleep outlasts the 2.5 s budget: the run parks with the call pending
  expect(await runCell(page, 'const s = await sleep({ ms: 600000 });\nreturn { slept: s, r: Math.random() };\n')).toBe('waiting');
  const originalId = await resultRunId(page);
  const card = waitingRun(page, originalId);
  await expect(card).toBeVisible();

  await card.getByTestId('fork-button').click();
  const editor = card.getByTestId('fork-replies');
  const template = JSON.parse(await editor.inputValue()) as Array<{ id: string; result: unknown }>;
  expect(template).toHaveLength(1);
  await editor.fill(JSON.stringify([{ id: template[0]!.id, result: { sleptMs: 7 } }]));
  await card.getByTestId('fork-submit').click();
  const created = card.getByTestId('fork-created');
  await expect(created).toBeVisible();
  const forkId = (await created.getAttribute('data-run-id')) ?? '';
  expect(forkId).not.toBe(originalId);

  // both runs are on the board and in the runs list; the fork says where it came from
  const forkCard = waitingRun(page, forkId);
  await expect(forkCard).toBeVisible();
  await expect(forkCard.getByTestId('forked-from')).toContainText(`forked from ${originalId} at suspension 1`);
  for (const c of [card, forkCard]) {
    await expect(c.getByTestId('waiting-reason')).toHaveText('pending_tools');
    await expectWholeText(c.getByTestId('waiting-reason'));
    await expect(c.getByTestId('waiting-summary')).toHaveText(/^\d+ pending$/);
    await expectWholeText(c.getByTestId('waiting-summary'));
    await expect(c.getByTestId('waiting-ttl')).toHaveText(/^\d+:\d\d$/);
  }
  await expect(runRow(page, originalId)).toBeVisible();
  await expect(runRow(page, forkId)).toBeVisible();

  expect(await settle(page, () => forkCard.getByTestId('wait-button').click())).toBe('completed');
  expect(await resultRunId(page)).toBe(forkId);
  expect(((await resultValue(page)) as { slept: unknown }).slept).toEqual({ sleptMs: 7 });
  await expect(runRow(page, forkId)).toHaveAttribute('data-state', 'completed');
  // the original is untouched: still waiting on its own sleep, and still waitable
  await expect(runRow(page, originalId)).toHaveAttribute('data-state', 'waiting');
  expect(await settle(page, () => card.getByTestId('wait-button').click())).toBe('waiting');
  expect(await resultRunId(page)).toBe(originalId);
  await card.getByTestId('abort-button').click();
  await expect(runRow(page, originalId)).toHaveAttribute('data-state', 'aborted');
});

test('download a run\'s cassette and replay it from the file: the same value, every tool call answered from the cassette', async ({ page }, testInfo) => {
  await openPlayground(page);
  expect(await runCell(page, 'const w = await weather_lookup({ city: "Oslo" });\nreturn { city: w.city, r: Math.random(), t: Date.now() };\n')).toBe('completed');
  const recordedId = await resultRunId(page);
  const recorded = await resultValue(page);
  await runRow(page, recordedId).click();
  const lab = page.getByTestId('replay-lab');
  const [download] = await Promise.all([page.waitForEvent('download'), lab.getByTestId('cassette-download').click()]);
  const file = testInfo.outputPath('oslo.cassette.json');
  await download.saveAs(file);
  const cassette = JSON.parse(readFileSync(file, 'utf8')) as { seed: number; calls: Array<{ tool: string }> };
  expect(cassette.calls.map((c) => c.tool)).toEqual(['weather_lookup']);

  expect(await settle(page, () => lab.getByTestId('replay-file').setInputFiles(file))).toBe('completed');
  const replayedId = await resultRunId(page);
  expect(replayedId).not.toBe(recordedId);
  expect(await resultValue(page)).toEqual(recorded);
  await runRow(page, replayedId).click();
  await expect(lab.getByTestId('run-seed')).toHaveText(String(cassette.seed));
  // the recorded run read the real clock; the replay read the cassette's readings back (the same Date.now())
  await expect(lab.getByTestId('run-clock')).toHaveText('replayed clock');
  await runRow(page, recordedId).click();
  await expect(lab.getByTestId('run-clock')).toHaveText('real clock');
});

test('a cassette of another cell than the editor\'s asks which to replay: the current cell keeps the edit, the recorded one replaces it', async ({ page }, testInfo) => {
  await openPlayground(page);
  const cell = 'const w = await weather_lookup({ city: "Oslo" });\nreturn { city: w.city };\n';
  expect(await runCell(page, cell)).toBe('completed');
  await runRow(page, await resultRunId(page)).click();
  const lab = page.getByTestId('replay-lab');
  const [download] = await Promise.all([page.waitForEvent('download'), lab.getByTestId('cassette-download').click()]);
  const file = testInfo.outputPath('edited.cassette.json');
  await download.saveAs(file);

  const edit = '// my edit';
  await setCell(page, `${edit}\n${cell}`);
  const lines = page.locator('.monaco-editor .view-lines');
  await lab.getByTestId('replay-file').setInputFiles(file);
  const choice = page.getByRole('group', { name: 'which cell to replay' });
  await expect(choice).toContainText('recorded another cell than the one in the editor');
  await expect(lines).toContainText(edit);
  expect(await settle(page, () => choice.getByRole('button', { name: 'replay the current cell' }).click())).toBe('completed');
  await expect(lines).toContainText(edit);

  await lab.getByTestId('replay-file').setInputFiles(file);
  expect(await settle(page, () => choice.getByRole('button', { name: 'replay the recorded cell' }).click())).toBe('completed');
  await expect(lines).not.toContainText(edit);
  await expect(choice).toHaveCount(0);
});

test('a run replayed from a cassette is marked so everywhere it shows: result, runs list, waiting card; its calls read "replayed", not "ok"', async ({ page }, testInfo) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await openPlayground(page);
  // the cell yields after its tool call: its replay parks too, so the waiting board shows it
  const cell = 'const w = await weather_lookup({ city: "Oslo" });\nawait yield_control("look");\nreturn w.city;\n';
  expect(await runCell(page, cell)).toBe('waiting');
  const recordedId = await resultRunId(page);
  expect(await settle(page, () => waitingRun(page, recordedId).getByRole('button', { name: 'Wait', exact: true }).click())).toBe('completed');
  const trajectory = page.getByTestId('trajectory-panel');
  const recordedRow = trajectory.getByTestId('trajectory-nested').filter({ hasText: 'weather_lookup' });
  // the recorded run's tool ran: its row reads ok
  await expect(recordedRow.locator('[data-status]')).toHaveText('ok');
  const lab = page.getByTestId('replay-lab');
  const [download] = await Promise.all([page.waitForEvent('download'), lab.getByRole('button', { name: 'download cassette' }).click()]);
  const file = testInfo.outputPath('yield.cassette.json');
  await download.saveAs(file);

  expect(await settle(page, () => lab.getByTestId('replay-file').setInputFiles(file))).toBe('waiting');
  const replayedId = await resultRunId(page);
  expect(replayedId).not.toBe(recordedId);
  const card = waitingRun(page, replayedId);
  await expect(card.getByTestId('waiting-replayed')).toHaveText(`replayed from cassette (recorded from run ${recordedId}): every tool call was answered from it, no tool ran`);
  await expect(runRow(page, replayedId).getByTestId('run-replayed')).toHaveText('replay');
  await expect(runRow(page, recordedId).getByTestId('run-replayed')).toHaveCount(0);
  await expect(trajectory.getByTestId('trajectory-replayed')).toContainText('replayed from cassette');
  const row = trajectory.getByTestId('trajectory-nested').filter({ hasText: 'weather_lookup' });
  await expect(row).toHaveAttribute('data-answered-by', 'cassette');
  await expect(row.locator('[data-status]')).toHaveText('replayed');
  // the tool's name stays whole beside the badge (at 1440 px a longer badge squeezed it to "…")
  await expectNotClipped(row.getByRole('button', { name: 'show details of the weather_lookup call' }), 'the replayed call\'s tool name');
  await expect(row.locator('[data-status]')).toHaveAttribute('title', 'replayed: answered from the cassette, the tool did not run');

  expect(await settle(page, () => card.getByRole('button', { name: 'Wait', exact: true }).click())).toBe('completed');
  await expect(page.getByTestId('result-replayed')).toContainText(`replayed from cassette (recorded from run ${recordedId})`);
  // the session's transcript keeps the fact
  await page.getByRole('tab', { name: 'Session' }).click();
  const transcriptRow = page.locator('[data-testid=transcript-nested][data-answered-by=cassette]');
  await expect(transcriptRow).toHaveCount(1);
  await expect(transcriptRow.locator('[data-status]')).toHaveText('replayed');
});

test('the seed field suggests no seed a Run does not use: empty means random, it empties once Run with seed used it, "reuse seed" brings a run\'s back', async ({ page }) => {
  await openPlayground(page);
  const lab = page.getByTestId('replay-lab');
  const seed = lab.getByLabel('seed');
  await expect(seed).toHaveValue('');
  await expect(seed).toHaveAttribute('placeholder', 'random');

  await setCell(page, 'return Math.random();\n');
  await seed.fill('42');
  expect(await settle(page, () => lab.getByRole('button', { name: 'Run with seed' }).click())).toBe('completed');
  await expect(lab.getByTestId('run-seed')).toHaveText('42');
  await expect(seed).toHaveValue('');
  const seeded = await resultValue(page);

  // a plain Run draws its own seed, and the empty field says so
  expect(await settle(page, () => page.getByRole('button', { name: 'Run ▸', exact: true }).click())).toBe('completed');
  await expect(lab.getByTestId('run-seed')).not.toHaveText('42');
  await expect(seed).toHaveValue('');

  // the seeded run's seed, reused: the same draw
  await runRow(page, (await page.locator('[data-testid=run-row]').nth(1).getAttribute('data-run-id')) ?? '').click();
  await expect(lab.getByTestId('run-seed')).toHaveText('42');
  await lab.getByRole('button', { name: 'reuse seed' }).click();
  await expect(seed).toHaveValue('42');
  expect(await settle(page, () => lab.getByRole('button', { name: 'Run with seed' }).click())).toBe('completed');
  expect(await resultValue(page)).toBe(seeded);
});
