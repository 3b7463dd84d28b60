// E2E (issue 17, replay lab): fork a waiting run from the waiting board with an edited reply and see both runs; replay a downloaded cassette.
import { readFileSync } from 'node:fs';
import { expect, test } from './fixtures.ts';
import type { Page } from '@playwright/test';
import { openPlayground, resultRunId, resultValue, runCell, setCell, settle, waitingRun } from './helpers.ts';

// each test runs two or three cells and a fork or a replay: on a loaded machine that outlasts one cell's 90 s
test.slow();

function runRow(page: Page, runId: string) {
  return page.locator(`[data-testid=run-row][data-run-id="${runId}"]`);
}

test('fork a waiting run from the board with an edited reply: the fork completes with it, the original still waits', async ({ page }) => {
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
