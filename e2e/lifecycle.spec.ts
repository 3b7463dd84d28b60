// E2E: run lifecycle and bad input in the page: abort, expiry, client answers, approvals, unknown runs, errors.
import { expect, test } from './fixtures.ts';
import { callSeq, openPlayground, panelShot, pickAgent, playgroundReady, resultRunId, resultValue, runCell, setCell, settle, settledAfter, waitingRun, PAGE_LOAD_TIMEOUT_MS } from './helpers.ts';

test('step 15: Abort on the board releases a waiting run, and the result panel follows it', async ({ page }) => {
  await openPlayground(page);
  expect(await runCell(page, 'await sleep({ ms: 60000 });\nreturn "never";\n')).toBe('waiting');
  const runId = await resultRunId(page);
  await waitingRun(page, runId).getByTestId('abort-button').click();
  await expect(waitingRun(page, runId)).toHaveCount(0);
  await expect(page.locator(`[data-testid=run-row][data-run-id="${runId}"]`)).toHaveAttribute('data-state', 'aborted');
  // the panel no longer offers a Wait on the released run: it shows how the run ended
  await expect(page.getByTestId('result-followed')).toHaveAttribute('data-followed', 'latest');
  await expect(page.getByTestId('result-status')).toHaveAttribute('data-status', 'failed');
  await expect(page.getByTestId('result-error-code')).toHaveText('aborted');
  await expect(page.getByTestId('result-wait')).toHaveCount(0);
});

test('step 15: a snapshot past its TTL expires and leaves the board; the result panel says so', async ({ page }) => {
  await openPlayground(page);
  await pickAgent(page, 'ephemeral');
  expect(await runCell(page, 'await sleep({ ms: 60000 });\nreturn "never";\n')).toBe('waiting');
  const runId = await resultRunId(page);
  // no check that the card showed first: with a 2 s TTL on a loaded machine it may expire before the board renders it
  await expect(page.locator(`[data-testid=run-row][data-run-id="${runId}"]`)).toHaveAttribute('data-state', 'expired');
  await expect(waitingRun(page, runId)).toHaveCount(0);
  const followed = page.getByTestId('result-followed');
  await expect(followed).toHaveAttribute('data-followed', 'expired');
  await expect(page.getByTestId('result-status')).toHaveAttribute('data-status', 'expired');
  await expect(followed).toContainText(`run ${runId}`);
  await expect(followed).toContainText('expired after 2 s (snapshotTtlSeconds)');
  await expect(followed).toContainText('Run the cell again');
  await expect(page.getByTestId('result-wait')).toHaveCount(0);
});

test('after a reload during a Wait, the result panel shows the run running, then the result that wait brings', async ({ page }) => {
  await openPlayground(page);
  await pickAgent(page, 'patient');
  expect(await runCell(page, `await yield_control('pause');\nconst reply = await ask_user({ question: 'Go on?' });\nreturn reply;\n`)).toBe('waiting');
  const runId = await resultRunId(page);
  await page.getByTestId('result-wait').click();
  // the wait resumes the cell, which now waits on ask_user inside that wait (a 60 s budget)
  const card = waitingRun(page, runId);
  await expect(card.getByTestId('client-call')).toContainText('Go on?');
  await page.reload();
  await playgroundReady(page);
  const followed = page.getByTestId('result-followed');
  await expect(followed).toHaveAttribute('data-followed', 'running');
  await expect(page.getByTestId('result-status')).toHaveAttribute('data-status', 'running');
  await expect(page.getByTestId('result-wait')).toHaveCount(0);
  // answering lets the wait made before the reload return; the panel shows what it returned
  const form = waitingRun(page, runId).getByTestId('client-call');
  await form.getByTestId('client-call-input').fill('{"answer":"go on"}');
  await form.getByTestId('client-call-send').click();
  await expect(page.getByTestId('result-status')).toHaveAttribute('data-status', 'completed');
  await expect(followed).toHaveAttribute('data-followed', 'latest');
  await expect(page.getByTestId('result-value')).toContainText('go on');
});

test('a client-tool call is answered in the board form and Wait delivers the answer', async ({ page }, testInfo) => {
  await openPlayground(page);
  expect(await runCell(page, `const reply = await ask_user({ question: 'Ship it?' });\nreturn reply;\n`)).toBe('waiting');
  const runId = await resultRunId(page);
  const card = waitingRun(page, runId);
  const form = card.getByTestId('client-call');
  await expect(form).toContainText('ask_user');
  await expect(form).toContainText('Ship it?');
  await panelShot(page, 'waiting-board', 'waiting-client-call', testInfo);
  await form.getByTestId('client-call-input').fill('{"answer":"ship it"}');
  expect(await settle(page, () => form.getByTestId('client-call-send-wait').click())).toBe('completed');
  expect(await resultValue(page)).toEqual({ answer: 'ship it' });
});

test('a client-tool error reaches the cell as a catchable error', async ({ page }) => {
  await openPlayground(page);
  expect(
    await runCell(page, `try {\n  await ask_user({ question: 'Ship it?' });\n  return 'answered';\n} catch (error) {\n  return 'caught: ' + error.message;\n}\n`),
  ).toBe('waiting');
  const form = waitingRun(page, await resultRunId(page)).getByTestId('client-call');
  await form.getByTestId('client-call-mode-error').check();
  await form.getByTestId('client-call-input').fill('the user walked away');
  expect(await settle(page, () => form.getByTestId('client-call-send-wait').click())).toBe('completed');
  expect(String(await resultValue(page))).toContain('the user walked away');
});

test('an approval prompt shows the tool, its input and the cell; Approve lets the call run, Deny fails it catchably', async ({ page }, testInfo) => {
  await openPlayground(page);
  const cell = `try {\n  const out = await exec({ command: 'echo', args: ['approved-run'] });\n  return { ok: JSON.stringify(out) };\n} catch (error) {\n  return { denied: String(error.message) };\n}\n`;
  await setCell(page, cell);
  let before = await callSeq(page);
  await page.getByTestId('run-button').click();
  const prompt = page.getByTestId('approval');
  await expect(prompt).toBeVisible();
  await expect(prompt.getByTestId('approval-tool')).toHaveText('exec');
  await expect(prompt).toContainText('approved-run');
  await expect(prompt.getByTestId('approval-code')).toContainText("command: 'echo'", { useInnerText: false });
  await panelShot(page, 'approvals-prompt', 'approvals', testInfo);
  await prompt.getByTestId('approval-approve').click();
  expect(await settledAfter(page, before)).toBe('completed');
  expect(JSON.stringify(await resultValue(page))).toContain('approved-run');
  await expect(page.getByTestId('approval')).toHaveCount(0);

  before = await callSeq(page);
  await page.getByTestId('run-button').click();
  await page.getByTestId('approval').getByTestId('approval-deny').click();
  expect(await settledAfter(page, before)).toBe('completed');
  expect(await resultValue(page)).toEqual({ denied: expect.any(String) });
});

test('a rejected cell shows invalid_input with the Gateway message', async ({ page }) => {
  await openPlayground(page);
  expect(await runCell(page, `const fs = require('fs');\nreturn fs;\n`)).toBe('failed');
  await expect(page.getByTestId('result-error-code')).toHaveText('invalid_input');
  await expect(page.getByTestId('result-error')).toContainText('require');
});

test('a link to an unknown run says so instead of showing nothing', async ({ page }) => {
  await openPlayground(page, '/?run=run_that_never_existed');
  await expect(page.getByTestId('trajectory-unknown-run')).toContainText('run_that_never_existed');
});

test('malformed API input is a 400 that names the field', async ({ request }) => {
  const response = await request.post('/api/trpc/exec', { data: { agentRunId: 'ar_x', input: { code: 42 } } });
  expect(response.status()).toBe(400);
  const body = (await response.json()) as { error: { message: string; data: { fields?: string[] } } };
  expect(body.error.message).toMatch(/^input\.code: /);
  expect(body.error.data.fields).toEqual(['input.code']);
});

test('a live-updates stream that cannot connect shows a banner, which clears once it connects', async ({ page }) => {
  // Refuse the events stream only: the page itself and its queries still load.
  await page.route('**/api/trpc/events**', (route) => route.abort('connectionrefused'));
  await page.goto('/');
  // the banner's own delay (SLOW_CONNECT_MS) starts when the page has mounted, which takes long on a loaded machine
  await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'connecting', { timeout: PAGE_LOAD_TIMEOUT_MS });
  // its 4 s timer runs on a page that is still busy starting up (Monaco, the catalog): a cap for a hung page
  await expect(page.getByTestId('connection-banner')).toBeVisible({ timeout: PAGE_LOAD_TIMEOUT_MS });
  await expect(page.getByTestId('connection-banner')).toContainText('retrying');
  await page.unroute('**/api/trpc/events**');
  await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'live');
  await expect(page.getByTestId('connection-banner')).toHaveCount(0);
});

test('adding a client tool mid-turn keeps the waiting run: the new tool is offered and the old call still answers', async ({ page }) => {
  await openPlayground(page);
  expect(await runCell(page, `const reply = await ask_user({ question: 'Still there?' });\nreturn reply;\n`)).toBe('waiting');
  const runId = await resultRunId(page);
  const turnBefore = await page.getByTestId('turn-info').innerText();
  await page.getByTestId('client-tools-toggle').click();
  const editor = page.getByTestId('client-tools-json');
  const tools = JSON.parse(await editor.inputValue()) as unknown[];
  tools.push({ name: 'pick_color', description: 'Ask the user to pick a color.', inputSchema: { type: 'object', properties: {} } });
  await editor.fill(JSON.stringify(tools, null, 2));
  await page.getByTestId('client-tools-apply').click();
  await expect(page.getByTestId('catalog-panel')).toContainText('pick_color');
  // same turn, and the parked run is still on the board
  await expect(page.getByTestId('turn-info')).toHaveText(turnBefore);
  const form = waitingRun(page, runId).getByTestId('client-call');
  await form.getByTestId('client-call-input').fill('{"answer":"yes"}');
  expect(await settle(page, () => form.getByTestId('client-call-send-wait').click())).toBe('completed');
  expect(await resultValue(page)).toEqual({ answer: 'yes' });
});

test('a cell over the request body limit says how big the request was and the limit, not a JSON parse error', async ({ page }) => {
  // 1.2 MB of comment lines: over server.maxRequestBodyBytes (1 MiB), within what a URL may carry
  const line = `// ${'x'.repeat(76)}\n`;
  const code = `${line.repeat(Math.ceil((1200 * 1024) / line.length))}return 1;\n`;
  const hash = `#lang=js&code=${Buffer.from(code).toString('base64url')}`;
  await openPlayground(page, `/${hash}`);
  await page.getByTestId('run-button').click();
  const error = page.getByTestId('result-call-error');
  await expect(error).toContainText('exec: the server refused the request (HTTP 413)');
  await expect(error).toContainText('server.maxRequestBodyBytes');
  await expect(error).toContainText(/This request was \d+ bytes/);
  await expect(error).toContainText('maxSourceBytes');
  await expect(error).not.toContainText('JSON');
});

test('a shell exec held behind an unanswered client call of an earlier run says what it is queued behind, and is put to the operator only when its turn comes', async ({ page }) => {
  await openPlayground(page);
  expect(await runCell(page, `return await ask_user({ question: 'Hold the line?' });\n`)).toBe('waiting');
  const askingRunId = await resultRunId(page);
  // the turn runs sequential tools one at a time (spec 02): the exec waits for ask_user, past the deadline, and
  // nobody is asked to approve it while it cannot run
  expect(await runCell(page, `return await exec({ command: 'echo', args: ['after the question'] });\n`)).toBe('waiting');
  const execRunId = await resultRunId(page);
  const queued = waitingRun(page, execRunId).getByTestId('pending-queued-behind');
  await expect(queued).toContainText(`queued behind ask_user (awaiting_client) in ${askingRunId}`);
  await expect(waitingRun(page, execRunId).getByTestId('pending-call')).toHaveAttribute('data-state', 'queued');
  await expect(page.getByTestId('approval')).toHaveCount(0);
  // answered: the exec is no longer held, and now asks for approval
  const form = waitingRun(page, askingRunId).getByTestId('client-call');
  await form.getByTestId('client-call-input').fill('{"answer":"yes"}');
  await form.getByTestId('client-call-send').click();
  await expect(queued).toHaveCount(0);
  await page.getByTestId('approval').getByTestId('approval-approve').click();
  expect(await settle(page, () => waitingRun(page, execRunId).getByTestId('wait-button').click())).toBe('completed');
  expect(JSON.stringify(await resultValue(page))).toContain('after the question');
});
