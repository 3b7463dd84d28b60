// E2E: the hostile corpus (server/hostile/cells) against the real server over HTTP, as an API client would send it.
import { expect, test } from './fixtures.ts';
import type { APIRequestContext } from '@playwright/test';
import { checkOutcome, loadCorpus, PROBE_EXPECT, PROBE_FILE, type ResultLike } from '../server/hostile/corpus.ts';
import { readFileSync } from 'node:fs';

/** One tRPC call over plain HTTP; returns the procedure's data or throws with the server's message. */
async function api<T>(request: APIRequestContext, path: string, input?: unknown, kind: 'mutation' | 'query' = 'mutation'): Promise<T> {
  const response =
    kind === 'mutation'
      ? await request.post(`/api/trpc/${path}`, { data: input ?? {} })
      : await request.get(`/api/trpc/${path}${input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`}`);
  const body = (await response.json()) as { result?: { data: T }; error?: { message: string } };
  if (!response.ok() || !body.result) throw new Error(`${path}: HTTP ${response.status()}: ${body.error?.message ?? JSON.stringify(body)}`);
  return body.result.data;
}

interface Turn {
  agentRunId: string;
  sessionId: string;
  turnToken: string;
  sessionToken: string;
}
type Result = ResultLike & { runId: string };

/**
 * exec, then wait until the run settles; approves this run's approvals when asked to, as the turn's owner with
 * its turnToken (an API client answers for its human, as the CLI does with --approve; the operator could too).
 */
async function runToEnd(request: APIRequestContext, turn: Turn, code: string, language: string, approve: boolean, typecheck: boolean): Promise<Result> {
  let done = false;
  const approver = (async () => {
    while (approve && !done) {
      const pending = await api<Array<{ approvalId: string }>>(request, 'approvals.list', { turnTokens: [turn.turnToken] }, 'query');
      for (const a of pending) await api(request, 'approvals.decide', { approvalId: a.approvalId, turnToken: turn.turnToken, approve: true });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  try {
    const { agentRunId, turnToken } = turn;
    let result = await api<Result>(request, 'exec', { agentRunId, turnToken, input: { code, language, ...(typecheck ? { typecheck: true } : {}) } });
    while (result.status === 'waiting') result = await api<Result>(request, 'wait', { agentRunId, turnToken, runId: result.runId });
    return result;
  } finally {
    done = true;
    await approver;
  }
}

// A plain API client: no operator cookie (it never loads the page), so it acts only on its own turns by their tokens.
test('the hostile corpus over HTTP: every attack ends as expected, a normal cell works after each, and runs.list still answers', async ({ request }) => {
  test.setTimeout(300_000);
  const corpus = loadCorpus();
  const probe = readFileSync(PROBE_FILE, 'utf8');
  const turn = await api<Turn>(request, 'turns.prepare', { agentId: 'main' });
  const problems: string[] = [];
  for (const c of corpus) {
    for (let i = 0; i < c.repeat; i++) problems.push(...checkOutcome(c, await runToEnd(request, turn, c.code, c.language, c.approve, c.typecheck)));
    problems.push(...checkOutcome({ name: `probe after ${c.name}`, expect: PROBE_EXPECT }, await runToEnd(request, turn, probe, 'javascript', false, false)));
  }
  expect(problems).toEqual([]);

  // runs.list answers normally afterwards, with this client's runs only
  const runs = await api<Array<{ agentRunId: string }>>(request, 'runs.list', { turnTokens: [turn.turnToken] }, 'query');
  expect(runs.length).toBeGreaterThan(corpus.length);
  expect(new Set(runs.map((r) => r.agentRunId))).toEqual(new Set([turn.agentRunId]));
  // a new turn of the same session replays its store
  const again = await api<Turn>(request, 'turns.prepare', { agentId: 'main', sessionId: turn.sessionId, sessionToken: turn.sessionToken });
  expect(checkOutcome({ name: 'probe in a new turn', expect: PROBE_EXPECT }, await runToEnd(request, again, probe, 'javascript', false, false))).toEqual([]);
});

test('an API client cannot pick the node executor (not a security boundary) or touch another turn', async ({ request }) => {
  const mine = await api<Turn>(request, 'turns.prepare', { agentId: 'main' });
  const theirs = await api<Turn>(request, 'turns.prepare', { agentId: 'main' });
  const override = await request.post('/api/trpc/exec', {
    data: { agentRunId: mine.agentRunId, turnToken: mine.turnToken, input: { code: 'return 1' }, executor: 'node' },
  });
  expect(override.status()).toBe(403);
  expect(((await override.json()) as { error: { message: string } }).error.message).toMatch(/executor/);
  const foreign = await request.post('/api/trpc/exec', { data: { agentRunId: theirs.agentRunId, turnToken: mine.turnToken, input: { code: 'return 1' } } });
  expect(foreign.status()).toBe(403);
  const joined = await request.post('/api/trpc/turns.prepare', { data: { agentId: 'main', sessionId: theirs.sessionId } });
  expect([401, 403]).toContain(joined.status());
});
