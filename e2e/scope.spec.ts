// E2E (issue 13): the page tells one story: panels scoped to its own turn, one selected run, Stop, client calls answered while the run runs.
import { expect, test } from './fixtures.ts';
import type { Page } from '@playwright/test';
import { callSeq, openPlayground, PANEL_SHOTS_DIR, pickAgent, resultRunId, resultValue, runCell, setCell, settle, settledAfter, waitingRun } from './helpers.ts';

/** The size the screenshots are taken at. */
const SHOT_VIEWPORT = { width: 1440, height: 900 };
const SLEEPING_CELL = 'await sleep({ ms: 60000 });\nreturn "never";\n';
const APPROVAL_CELL = `try {\n  return await exec({ command: 'echo', args: ['asked'] });\n} catch (error) {\n  return { denied: String(error.message) };\n}\n`;

function runRow(page: Page, runId: string) {
  return page.locator(`[data-testid=run-row][data-run-id="${runId}"]`);
}

function allTurns(page: Page) {
  return page.getByRole('checkbox', { name: /all turns/ });
}

test('two pages: each board, runs list and approvals show its own turn; "all turns" shows the other page\'s', async ({ context }) => {
  const a = await context.newPage();
  const b = await context.newPage();
  // the two loads are independent: side by side they cost one load's wait, not two
  await Promise.all([openPlayground(a), openPlayground(b)]);

  // B's approval: on B's page; on A's only with "all turns". First, while nothing else of B's turn runs: shell exec
  // is sequential, so behind a call still running in the turn it would wait its turn before asking (spec 02).
  await b.bringToFront();
  await setCell(b, APPROVAL_CELL);
  const before = await callSeq(b);
  await b.getByTestId('run-button').click();
  await expect(b.getByTestId('approval')).toBeVisible();
  await a.bringToFront();
  await allTurns(a).check();
  await expect(a.getByTestId('approval')).toBeVisible();
  await allTurns(a).uncheck();
  await expect(a.getByTestId('approval')).toHaveCount(0);
  await b.bringToFront();
  await b.getByTestId('approval').getByTestId('approval-deny').click();
  expect(await settledAfter(b, before)).toBe('completed');

  // B parks a run; B sees it, expanded (it is B's selected run).
  await b.bringToFront();
  expect(await runCell(b, SLEEPING_CELL)).toBe('waiting');
  const bRun = await resultRunId(b);
  await expect(waitingRun(b, bRun)).toHaveAttribute('data-expanded', 'true');

  // A receives B's run (shown with "all turns") but does not show it by default.
  await a.bringToFront();
  await allTurns(a).check();
  const card = waitingRun(a, bRun);
  await expect(card).toBeVisible();
  await expect(runRow(a, bRun)).toBeVisible();
  // another turn's card is one line until expanded
  await expect(card).toHaveAttribute('data-expanded', 'false');
  await expect(card.getByTestId('pending-call')).toHaveCount(0);
  await card.getByTestId('waiting-run-toggle').click();
  await expect(card.getByTestId('pending-call')).toContainText('sleep');
  await allTurns(a).uncheck();
  await expect(card).toHaveCount(0);
  await expect(runRow(a, bRun)).toHaveCount(0);
  await expect(a.getByTestId('waiting-empty')).toBeVisible();

  // "abort all waiting" ends A's waiting runs only: B's run keeps waiting.
  await a.bringToFront();
  expect(await runCell(a, SLEEPING_CELL)).toBe('waiting');
  const a1 = await resultRunId(a);
  expect(await runCell(a, SLEEPING_CELL)).toBe('waiting');
  const a2 = await resultRunId(a);
  await expect(a.getByTestId('waiting-run')).toHaveCount(2);
  await a.setViewportSize(SHOT_VIEWPORT);
  await allTurns(a).check();
  await expect(waitingRun(a, bRun)).toBeVisible();
  await a.screenshot({ path: `${PANEL_SHOTS_DIR}/scope-all-turns.png` });
  await allTurns(a).uncheck();
  await a.screenshot({ path: `${PANEL_SHOTS_DIR}/scope-this-turn.png` });
  await a.getByTestId('abort-all-waiting').click();
  await expect(runRow(a, a1)).toHaveAttribute('data-state', 'aborted');
  await expect(runRow(a, a2)).toHaveAttribute('data-state', 'aborted');
  await expect(a.getByTestId('waiting-empty')).toBeVisible();
  await expect(a.getByTestId('abort-all-waiting')).toHaveCount(0);
  await expect(runRow(b, bRun)).toHaveAttribute('data-state', 'waiting');

  await b.bringToFront();
  await waitingRun(b, bRun).getByTestId('abort-button').click();
  await expect(runRow(b, bRun)).toHaveAttribute('data-state', 'aborted');
});

test('one selected run: a new exec shows its own run at once (also during an approval); a picked run drives result and trajectory; a typecheck failure shows no earlier calls', async ({ page }) => {
  await openPlayground(page);
  const trajectory = page.getByTestId('trajectory-panel');
  expect(await runCell(page, 'const r = await web_search({ query: "QuickJS", limit: 1 });\nreturn r.results.length;\n')).toBe('completed');
  await expect(trajectory.locator('[data-testid=trajectory-nested][data-tool=web_search]')).toBeVisible();
  const searchRun = await resultRunId(page);

  // While the next cell's nested call waits for approval, the trajectory already shows that run.
  await setCell(page, APPROVAL_CELL);
  const before = await callSeq(page);
  await page.getByTestId('run-button').click();
  await expect(page.getByTestId('approval')).toBeVisible();
  await expect(trajectory.getByTestId('trajectory-run-state')).toHaveAttribute('data-status', 'running');
  await expect(trajectory.locator('[data-testid=trajectory-nested][data-tool=exec]')).toHaveAttribute('data-status', 'awaiting_approval');
  await expect(trajectory.locator('[data-testid=trajectory-nested][data-tool=web_search]')).toHaveCount(0);
  await page.setViewportSize(SHOT_VIEWPORT);
  await page.screenshot({ path: `${PANEL_SHOTS_DIR}/selected-run-approval.png` });
  await page.getByTestId('approval').getByTestId('approval-approve').click();
  expect(await settledAfter(page, before)).toBe('completed');
  const approvedRun = await resultRunId(page);
  await expect(runRow(page, approvedRun)).toHaveAttribute('data-selected', 'true');

  // Picking the earlier run in the list: result, trajectory and the list all describe that run.
  await runRow(page, searchRun).click();
  await expect(runRow(page, searchRun)).toHaveAttribute('data-selected', 'true');
  await expect(page.getByTestId('result-call')).toHaveAttribute('data-run-id', searchRun);
  await expect(page.getByTestId('result-call')).toHaveAttribute('data-picked', 'true');
  await expect(page.getByTestId('result-value')).toContainText('1');
  await expect(trajectory.locator('[data-testid=trajectory-nested][data-tool=web_search]')).toBeVisible();
  await runRow(page, approvedRun).click();
  await expect(page.getByTestId('result-call')).toHaveAttribute('data-picked', 'false');
  await expect(page.getByTestId('result-call')).toHaveAttribute('data-run-id', approvedRun);

  // A cell the typecheck rejects never runs: no earlier run's calls stay on screen.
  await page.getByTestId('language-ts').click();
  await page.getByTestId('typecheck-toggle').check();
  expect(await runCell(page, 'const n: number = "not a number";\nreturn n;\n')).toBe('failed');
  await expect(trajectory.getByTestId('trajectory-nested')).toHaveCount(0);
});

test('new turn with a waiting run asks first; once confirmed, the old result and its Wait are gone and the run is aborted', async ({ page }) => {
  await openPlayground(page);
  expect(await runCell(page, SLEEPING_CELL)).toBe('waiting');
  const runId = await resultRunId(page);
  const turnBefore = await page.getByTestId('turn-info').innerText();

  page.once('dialog', (dialog) => void dialog.dismiss());
  await page.getByTestId('new-turn').click();
  await expect(page.getByTestId('turn-info')).toHaveText(turnBefore);
  await expect(page.getByTestId('result-wait')).toBeVisible();

  let question = '';
  page.once('dialog', (dialog) => {
    question = dialog.message();
    void dialog.accept();
  });
  await page.getByTestId('new-turn').click();
  await expect(page.getByTestId('turn-info')).not.toHaveText(turnBefore);
  expect(question).toContain('1 running or waiting run');
  await expect(page.getByTestId('result-wait')).toHaveCount(0);
  await expect(page.getByTestId('result-status')).toHaveCount(0);
  await expect(page.getByTestId('trajectory-empty')).toBeVisible();
  await expect(page.getByTestId('waiting-empty')).toBeVisible();
  await allTurns(page).check();
  await expect(runRow(page, runId)).toHaveAttribute('data-state', 'aborted');
});

test('Stop aborts a running cell at once; a client call is on the board while the cell runs and an answer completes the same exec', async ({ page }) => {
  await openPlayground(page);
  // a 60 s budget: only Stop can end the loop, and the answer below always comes before the deadline
  await pickAgent(page, 'patient');
  await setCell(page, 'while (true) {}\n');
  expect(await settle(page, () => page.getByTestId('run-button').click().then(() => page.getByTestId('result-stop').click()))).toBe('failed');
  await expect(page.getByTestId('result-error-code')).toHaveText('aborted');
  await expect(runRow(page, await resultRunId(page))).toHaveAttribute('data-state', 'aborted');
  await expect(page.getByTestId('run-button')).toBeEnabled();

  await setCell(page, `const reply = await ask_user({ question: 'Right now?' });\nreturn reply;\n`);
  const before = await callSeq(page);
  await page.getByTestId('run-button').click();
  const card = page.getByTestId('waiting-run');
  const form = card.getByTestId('client-call');
  await expect(form).toContainText('Right now?');
  await expect(page.getByTestId('result-running')).toBeVisible();
  await expect(card.getByTestId('wait-button')).toHaveCount(0);
  await expect(form.getByTestId('client-call-send-wait')).toHaveCount(0);
  await page.setViewportSize(SHOT_VIEWPORT);
  await page.screenshot({ path: `${PANEL_SHOTS_DIR}/client-call-while-running.png` });
  await form.getByTestId('client-call-input').fill('{"answer":"now"}');
  await form.getByTestId('client-call-send').click();
  expect(await settledAfter(page, before)).toBe('completed');
  await expect(page.getByTestId('result-call')).toHaveText('exec');
  expect(await resultValue(page)).toEqual({ answer: 'now' });
});

test('a nested call opens as a span: invocation id, parent, timings, bytes, the approval decision and bounded previews', async ({ page }) => {
  await openPlayground(page);
  await setCell(page, APPROVAL_CELL);
  const before = await callSeq(page);
  await page.getByTestId('run-button').click();
  await page.getByTestId('approval').getByTestId('approval-approve').click();
  expect(await settledAfter(page, before)).toBe('completed');
  const trajectory = page.getByTestId('trajectory-panel');
  await trajectory.getByRole('button', { name: 'show details of the exec call' }).click();
  const detail = trajectory.getByTestId('span-detail');
  await expect(detail).toHaveAttribute('data-invocation-id', /:1$/);
  const fields = detail.getByTestId('span-detail-fields');
  await expect(fields).toContainText('approved');
  await expect(fields).toContainText('(tool call playground-');
  await expect(fields).toContainText('bytes in / out');
  await expect(detail.getByTestId('span-input')).toContainText('"command":"echo"');
  await expect(detail.getByTestId('span-output')).toContainText('asked');
  await page.setViewportSize(SHOT_VIEWPORT);
  await page.screenshot({ path: `${PANEL_SHOTS_DIR}/span-detail.png` });
  await trajectory.getByRole('button', { name: 'hide details of the exec call' }).click();
  await expect(detail).toHaveCount(0);
});

test('switching the agent with a run parked asks first; once confirmed, a notice says the run was aborted with the turn', async ({ page }) => {
  await openPlayground(page);
  expect(await runCell(page, SLEEPING_CELL)).toBe('waiting');
  const runId = await resultRunId(page);
  // declined: the agent, the turn and the run stay
  let asked = '';
  page.once('dialog', (dialog) => {
    asked = dialog.message();
    void dialog.dismiss();
  });
  await page.getByTestId('agent-select').selectOption('research');
  await expect.poll(() => asked).toContain('will be aborted');
  await expect(page.getByTestId('agent-select')).toHaveValue('main');
  await expect(waitingRun(page, runId)).toBeVisible();
  // confirmed: the run ends with its turn, and the page says so instead of just dropping it from view
  page.once('dialog', (dialog) => void dialog.accept());
  await pickAgent(page, 'research');
  const notice = page.getByRole('status').filter({ hasText: runId });
  await expect(notice).toContainText(`${runId} was aborted when the previous turn ended`);
  await expect(waitingRun(page, runId)).toHaveCount(0);
  await notice.getByRole('button', { name: 'show all turns' }).click();
  await expect(allTurns(page)).toBeChecked();
  await expect(runRow(page, runId)).toHaveAttribute('data-state', 'aborted');
  await expect(notice).toHaveCount(0);
});

test('at 1440x900 a waiting card keeps its TTL countdown clear of the run id (the id truncates, its title has it whole)', async ({ page }) => {
  await page.setViewportSize(SHOT_VIEWPORT);
  await openPlayground(page);
  expect(await runCell(page, SLEEPING_CELL)).toBe('waiting');
  const runId = await resultRunId(page);
  const card = waitingRun(page, runId);
  const id = card.getByTestId('waiting-run-id');
  await expect(id).toHaveAttribute('title', runId);
  await expect(card.getByTestId('waiting-ttl')).toBeVisible();
  const idBox = await id.boundingBox();
  const ttlBox = await card.getByTestId('waiting-ttl').boundingBox();
  expect(idBox && ttlBox, 'both are laid out').toBeTruthy();
  if (!idBox || !ttlBox) return;
  // apart: the countdown sits on the card's second line, or right of the id on the first
  expect(idBox.y + idBox.height <= ttlBox.y || idBox.x + idBox.width <= ttlBox.x).toBe(true);
});
