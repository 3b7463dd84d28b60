// Router tests through createCaller against a real Gateway (demo config, default budget): inputs, errors, the flow.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRouterHarness, wholeTranscript, rejection, type RouterCaller } from './testing.ts';
import { until } from '../testing.ts';
import { appRouter } from './routers/_app.ts';
import type { GatewayApi } from '../gateway-types.ts';
import { runEvents, type StreamedRunEvent } from './routers/events.ts';

let gateway: GatewayApi;
let caller: RouterCaller;

beforeAll(async () => {
  ({ gateway, caller } = await openRouterHarness());
});

afterAll(async () => {
  await gateway.close();
});

describe('config and catalog', () => {
  it('lists the configured agents with their model and executor', async () => {
    const agents = await caller.config.agents();
    expect(agents.map((a) => a.id)).toContain('main');
    expect(agents[0]?.executor).toBe('quickjs');
  });
  it('on code mode: the surface is exec, wait and direct-only tools', async () => {
    const surface = await caller.config.surface({ agentId: 'main' });
    expect(surface.codeMode).toBe(true);
    expect(surface.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['exec', 'wait']));
  });
  it('the declarations bundle declares the tool globals and the client tools of the request', async () => {
    const { declarations } = await caller.catalog.declarations({
      clientTools: [{ name: 'ask_user', description: 'ask', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }],
    });
    expect(declarations).toContain('declare function web_search');
    expect(declarations).toContain('ask_user');
  });
});

describe('bad input', () => {
  it('on a non-string code: BAD_REQUEST naming input.code', async () => {
    const err = await rejection(caller.exec({ agentRunId: 'ar_x', input: { code: 42 as unknown as string } }));
    expect(err.code).toBe('BAD_REQUEST');
    const formatted = appRouter._def._config.errorFormatter({
      error: err,
      type: 'mutation',
      path: 'exec',
      input: undefined,
      ctx: undefined,
      shape: { message: err.message, code: -32600, data: { code: 'BAD_REQUEST', httpStatus: 400 } },
    });
    expect(formatted.message).toMatch(/^input\.code: /);
  });
  it('on an unknown field: BAD_REQUEST naming it, so a typo does not pass silently', async () => {
    const err = await rejection(caller.exec({ agentRunId: 'ar_x', input: { code: 'return 1', langauge: 'typescript' } as never }));
    expect(err.code).toBe('BAD_REQUEST');
    expect(err.message).toContain('langauge');
  });
  it('on an empty runId: BAD_REQUEST that says runId', async () => {
    const err = await rejection(caller.runs.get({ runId: '' }));
    expect(err.code).toBe('BAD_REQUEST');
    expect(err.message).toContain('runId');
  });
  it('on an unknown run: NOT_FOUND with a message that says what to do', async () => {
    const err = await rejection(caller.runs.get({ runId: 'run_nope' }));
    expect(err.code).toBe('NOT_FOUND');
    expect(err.message).toContain('run_nope');
  });
  it('on a Gateway InvalidInputError (unknown client call): BAD_REQUEST with the Gateway message', async () => {
    const err = await rejection(caller.answerClientCall({ runId: 'run_nope', callId: 'c1', result: 1 }));
    expect(err.code).toBe('BAD_REQUEST');
    expect(err.message.length).toBeGreaterThan(10);
  });
  it('on an unknown approval: BAD_REQUEST with the Gateway message', async () => {
    const err = await rejection(caller.approvals.decide({ approvalId: 'appr_nope', approve: true }));
    expect(err.code).toBe('BAD_REQUEST');
    expect(err.message).toContain('appr_nope');
  });
  it('on both a result and an error for a client call: BAD_REQUEST naming error', async () => {
    const err = await rejection(caller.answerClientCall({ runId: 'r', callId: 'c', result: 1, error: 'no' }));
    expect(err.code).toBe('BAD_REQUEST');
    expect(err.message).toContain('either result or error');
  });
});

describe('a turn end to end', () => {
  it('exec completes a cell, and wait on an unknown run fails with the spec message', async () => {
    const turn = await caller.turns.prepare({ agentId: 'main' });
    const result = await caller.exec({ agentRunId: turn.agentRunId, input: { code: 'return 20 + 22' } });
    expect(result).toMatchObject({ status: 'completed', value: 42 });
    const waited = await caller.wait({ agentRunId: turn.agentRunId, runId: 'run_unknown' });
    expect(waited).toMatchObject({ status: 'failed', code: 'invalid_input', error: 'code mode run is unavailable or expired.' });
    await caller.turns.end({ agentRunId: turn.agentRunId });
  });

  it('a cell that parks waits, shows in runs.list, and wait completes it with the nested call in the trajectory', async () => {
    const turn = await caller.turns.prepare({ agentId: 'main' });
    const controller = new AbortController();
    const events: StreamedRunEvent[] = [];
    const collecting = (async () => {
      for await (const event of runEvents((l) => gateway.subscribe(l), { maxQueued: 1000, signal: controller.signal })) events.push(event);
    })();
    const first = await caller.exec({ agentRunId: turn.agentRunId, input: { code: 'const slept = sleep({ ms: 20 });\nawait yield_control("park");\nawait slept;\nreturn "done"' } });
    expect(first.status).toBe('waiting');
    if (first.status !== 'waiting') return;
    const listed = (await caller.runs.list()).find((r) => r.runId === first.runId);
    expect(listed?.state).toBe('waiting');
    const done = await caller.wait({ agentRunId: turn.agentRunId, runId: first.runId });
    expect(done).toMatchObject({ status: 'completed', value: 'done' });
    const trajectory = await caller.runs.trajectory({ runId: first.runId });
    expect(trajectory.calls.map((c) => c.tool)).toEqual(['exec', 'wait']);
    expect(trajectory.calls[0]?.nested.map((n) => n.tool)).toEqual(['sleep', 'yield_control']);
    // the same run as OTLP/JSON spans: one trace, the run span at the root
    const otlp = await caller.runs.otlp({ runId: first.runId });
    expect(otlp.fileName).toBe(`trace-${first.runId}.otlp.json`);
    const spans = (JSON.parse(otlp.json) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ name: string; parentSpanId?: string }> }> }> }).resourceSpans
      .flatMap((r) => r.scopeSpans)
      .flatMap((s) => s.spans);
    expect(spans.filter((s) => !s.parentSpanId).map((s) => s.name)).toEqual(['codemode.run']);
    expect(spans.map((s) => s.name)).toEqual(expect.arrayContaining(['codemode.exec', 'codemode.wait', 'codemode.call sleep']));
    await expect(caller.runs.otlp({ runId: 'run_unknown' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    controller.abort();
    await collecting;
    const types = events.filter((e) => e.runId === first.runId).map((e) => e.type);
    expect(types).toContain('run.started');
    expect(types).toContain('nested.started');
    expect(types).toContain('nested.finished');
    await caller.turns.end({ agentRunId: turn.agentRunId });
  });

  it('abort of an unknown run reports false rather than failing', async () => {
    expect(await caller.abort({ runId: 'run_nope' })).toEqual({ aborted: false });
  });
});

describe('runEvents', () => {
  it('filtered by run: yields nothing of other runs, and ends when aborted', async () => {
    const controller = new AbortController();
    const seen: Array<string | undefined> = [];
    const turn = await caller.turns.prepare({ agentId: 'main' });
    const iterator = runEvents((l) => gateway.subscribe(l), { accept: (e) => e.runId === 'run_other', maxQueued: 1000, signal: controller.signal });
    const draining = (async () => {
      for await (const event of iterator) seen.push(String(event.runId));
    })();
    await caller.exec({ agentRunId: turn.agentRunId, input: { code: 'return 1' } });
    controller.abort();
    await draining;
    expect(seen).toEqual([]);
    await caller.turns.end({ agentRunId: turn.agentRunId });
  });
});

describe('sessions', () => {
  it('on an unknown session: transcript and store are empty lists, not errors', async () => {
    expect(await wholeTranscript(caller, { sessionId: 'sess_never_seen' })).toEqual([]);
    expect(await caller.sessions.store({ sessionId: 'sess_never_seen' })).toEqual([]);
  });

  it('on an empty sessionId: BAD_REQUEST naming sessionId', async () => {
    const err = await rejection(caller.sessions.store({ sessionId: '' }));
    expect(err.code).toBe('BAD_REQUEST');
    expect(err.message).toContain('sessionId');
  });

  it('on a blank sessionId: BAD_REQUEST with the Gateway message naming sessionId', async () => {
    const err = await rejection(caller.sessions.transcript({ sessionId: '   ' }));
    expect(err.code).toBe('BAD_REQUEST');
    expect(err.message).toContain('sessionId');
  });

  it('on an unknown field: BAD_REQUEST naming it', async () => {
    const err = await rejection(caller.sessions.transcript({ sessionId: 's', leafId: 'x' } as never));
    expect(err.code).toBe('BAD_REQUEST');
    expect(err.message).toContain('leafId');
  });

  it('a stored value shows in the store, and the transcript holds both exec calls with their nested store/load rows', async () => {
    const turn = await caller.turns.prepare({ agentId: 'main' });
    const { sessionId, agentRunId } = turn;
    const first = await caller.exec({
      agentRunId,
      input: { code: 'const API_TOKEN = "abc123-secret-value";\nawait store("greeting", { text: "hi" });\nreturn "saved"' },
      toolCallId: 'call_store',
    });
    expect(first.status).toBe('completed');
    const second = await caller.exec({ agentRunId, input: { code: 'return await load("greeting")' }, toolCallId: 'call_load' });
    expect(second).toMatchObject({ status: 'completed', value: { text: 'hi' } });

    expect(await caller.sessions.store({ sessionId })).toEqual([{ key: 'greeting', json: '{"text":"hi"}', networkContent: false }]);

    const transcript = await wholeTranscript(caller, { sessionId });
    const calls = transcript.flatMap((e) => (e.type === 'tool-call' ? [e.payload] : []));
    expect(calls.map((c) => [c.tool, c.toolCallId])).toEqual([
      ['exec', 'call_store'],
      ['exec', 'call_load'],
    ]);
    // the source is kept redacted: the computation stays, the credential literal does not
    expect(calls[0]?.code).toContain('store("greeting"');
    expect(calls[0]?.code).not.toContain('abc123-secret-value');
    const results = transcript.flatMap((e) => (e.type === 'tool-result' ? [e.payload] : []));
    expect(results.map((r) => [r.toolCallId, r.status])).toEqual([
      ['call_store', 'completed'],
      ['call_load', 'completed'],
    ]);
    // exec returns the text the model receives, the same the transcript keeps
    expect([first.modelText, second.modelText]).toEqual(results.map((r) => r.text));
    expect(JSON.parse(second.modelText)).toMatchObject({ status: 'completed', value: { text: 'hi' } });
    const nested = transcript.flatMap((e) => (e.type === 'nested-activity' ? [e.payload] : []));
    expect(nested.map((n) => [n.parentToolCallId, n.kind])).toEqual([
      ['call_store', 'store'],
      ['call_load', 'store'],
    ]);
    // root first: each entry hangs under the one before it
    transcript.forEach((entry, i) => expect(entry.parentId).toBe(i === 0 ? null : transcript[i - 1]?.id));
    expect(transcript.filter((e) => e.type === 'code-mode-store')).toHaveLength(1);
    await caller.turns.end({ agentRunId });
  });

  it('a value stored after network content carries the network flag; a failed cell commits nothing', async () => {
    const turn = await caller.turns.prepare({ agentId: 'main' });
    const { sessionId, agentRunId } = turn;
    const fetched = await caller.exec({
      agentRunId,
      input: { code: 'const r = await web_search({ query: "QuickJS", limit: 1 });\nawait store("hits", r.results.length);\nreturn 1' },
    });
    expect(fetched.status).toBe('completed');
    const failed = await caller.exec({ agentRunId, input: { code: 'await store("lost", 1);\nthrow new Error("boom")' } });
    expect(failed.status).toBe('failed');
    const store = await caller.sessions.store({ sessionId });
    expect(store.map((e) => [e.key, e.networkContent])).toEqual([['hits', true]]);
    const statuses = (await wholeTranscript(caller, { sessionId })).flatMap((e) => (e.type === 'tool-result' ? [e.payload.status] : []));
    expect(statuses).toEqual(['completed', 'failed']);
    await caller.turns.end({ agentRunId });
  });
});

// What the page's Stop button and its early client-call cards rely on: the run of an exec in flight is found
// in runs.list by the tool-call id the page gave, and can be aborted or answered before exec returns.
describe('an exec in flight, seen by the page', () => {
  it('Stop: the running run is found by its tool-call id and abort ends the exec at once with aborted', async () => {
    const { agentRunId } = await caller.turns.prepare({ agentId: 'main' });
    const running = caller.exec({ agentRunId, toolCallId: 'playground-stop', input: { code: 'while (true) {}' } });
    let runId: string | undefined;
    const found = () => (runId = gateway.runs().find((r) => r.calls[0]?.toolCallId === 'playground-stop')?.runId) !== undefined;
    await until(found, { what: 'the run of the exec in flight' });
    expect((await caller.runs.list()).find((r) => r.runId === runId)?.state).toBe('running');
    expect(await caller.abort({ runId: runId! })).toEqual({ aborted: true });
    expect(await running).toMatchObject({ status: 'failed', code: 'aborted' });
    await caller.turns.end({ agentRunId });
  });

  it('a client call is listed while the run still runs, and an answer before the deadline completes the same exec inline', async () => {
    const ask = { name: 'ask_user', description: 'ask', inputSchema: { type: 'object' } };
    const { agentRunId } = await caller.turns.prepare({ agentId: 'main', clientTools: [ask] });
    const running = caller.exec({ agentRunId, toolCallId: 'playground-ask', input: { code: 'return await ask_user({ q: "now?" })' } });
    const askingRun = () => gateway.runs().find((r) => r.calls[0]?.toolCallId === 'playground-ask' && r.clientCalls.length > 0);
    await until(() => askingRun() !== undefined, { what: 'the client call on the running run' });
    const asking = (await caller.runs.list()).find((r) => r.runId === askingRun()?.runId);
    expect(asking?.state).toBe('running');
    await caller.answerClientCall({ runId: asking!.runId, callId: asking!.clientCalls[0]!.callId, result: { answer: 'yes' } });
    expect(await running).toMatchObject({ status: 'completed', value: { answer: 'yes' } });
    await caller.turns.end({ agentRunId });
  });
});
