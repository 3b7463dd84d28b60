// Limits at the API edge: source previews in runs.list, the source once per run in events, event streams per owner, slow readers dropped, the cell source cap.
import { EventEmitter } from 'node:events';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_CODE_MODE_OPTIONS, DEFAULT_SERVER_OPTIONS } from '../config/schema.ts';
import type { RunEvent, RunView } from '../runs/types.ts';
import { callerFor, clientAccess, clientOwner, OPERATOR, openRouterHarness, rejection, TEST_OWNERS, type RouterHarness } from './testing.ts';
import { MAX_SOURCE_PREVIEW_CHARS } from './routers/runs.ts';
import { runEvents, STALLED_READER_MS, streamedEvent, type StreamedRunEvent } from './routers/events.ts';

let h: RouterHarness;

beforeAll(async () => {
  h = await openRouterHarness();
});

afterAll(async () => {
  await h.gateway.close();
});

/** A run's events from a real emitter, as the Gateway sends them. */
function eventSource() {
  const emitter = new EventEmitter();
  return {
    subscribe: (listener: (event: RunEvent) => void) => {
      emitter.on('event', listener);
      return () => emitter.off('event', listener);
    },
    emit: (event: RunEvent) => emitter.emit('event', event),
    listeners: () => emitter.listenerCount('event'),
  };
}

const view = { runId: 'run_1', code: 'return 1' } as RunView;
const updated = (at: number): RunEvent => ({ type: 'run.updated', runId: 'run_1', at, view });
const updatedRun = (runId: string, at: number): RunEvent => ({ type: 'run.updated', runId, at, view: { ...view, runId } });

describe('runs.list and runs.get', () => {
  it('runs.list carries a bounded source preview, runs.get the whole source', async () => {
    const turn = await h.caller.turns.prepare({});
    const code = `// ${'x'.repeat(MAX_SOURCE_PREVIEW_CHARS * 3)}\nreturn 1`;
    const result = await h.caller.exec({ agentRunId: turn.agentRunId, input: { code } });
    const runId = (result.status === 'completed' && result.telemetry.runId) || '';
    const listed = (await h.caller.runs.list()).find((r) => r.runId === runId);
    expect(listed?.code).toHaveLength(MAX_SOURCE_PREVIEW_CHARS);
    expect(listed).toMatchObject({ codeTruncated: true, codeChars: code.length });
    expect((await h.caller.runs.get({ runId })).code).toBe(code);
  });
});

describe('events carry the source once', () => {
  it('run.updated leaves the source out; run.started keeps it', () => {
    const started = streamedEvent({ type: 'run.started', runId: 'run_1', at: 1, view });
    expect(started.type === 'run.started' && started.view.code).toBe('return 1');
    expect('code' in (streamedEvent(updated(2)) as Extract<StreamedRunEvent, { type: 'run.updated' }>).view).toBe(false);
  });

  it('over a real cell: every run.updated on the stream is without the source', async () => {
    const controller = new AbortController();
    const seen: StreamedRunEvent[] = [];
    const draining = (async () => {
      for await (const event of runEvents((l) => h.gateway.subscribe(l), { maxQueued: 1000, signal: controller.signal })) seen.push(event);
    })();
    const turn = await h.caller.turns.prepare({});
    const result = await h.caller.exec({ agentRunId: turn.agentRunId, input: { code: 'await sleep({ ms: 1 }); return 1' } });
    const runId = (result.status === 'completed' && result.telemetry.runId) || '';
    await vi.waitFor(() => expect(seen.some((e) => e.runId === runId && e.type === 'run.updated')).toBe(true));
    controller.abort();
    await draining;
    const ofRun = seen.filter((e) => e.runId === runId);
    expect(ofRun.filter((e) => e.type === 'run.started').map((e) => 'code' in e.view && e.view.code)).toEqual(['await sleep({ ms: 1 }); return 1']);
    for (const e of ofRun) if (e.type === 'run.updated') expect(e.view).not.toHaveProperty('code');
  });
});

describe('slow readers', () => {
  it('a reader that lets maxQueued events pile up is dropped: unsubscribed at once, and the stream ends with an error saying why', async () => {
    const source = eventSource();
    const stream = runEvents(source.subscribe, { maxQueued: 16 });
    const first = stream.next();
    source.emit(updated(0));
    expect((await first).value).toMatchObject({ type: 'run.updated' });
    // 17 runs' updates: nothing to coalesce
    for (let i = 1; i <= 17; i++) source.emit(updatedRun(`run_${i}`, i));
    expect(source.listeners()).toBe(0);
    await expect(stream.next()).rejects.toThrow(/fell 16 events behind.*subscribe again/);
  });

  it("a reader that is behind holds one update per run and one record per nested call (the newest, in the oldest's place), however many arrive", async () => {
    const source = eventSource();
    const stream = runEvents(source.subscribe, { maxQueued: 16 });
    const call = (status: 'running' | 'ok') => ({ invocationId: 'cm_1:1', requestId: 'r1', tool: 't', kind: 'tool', inputBytes: 1, startedAt: 1, status }) as never;
    // the reader takes one event, then stops reading while 10,000 more arrive
    const first = stream.next();
    source.emit(updatedRun('run_0', 0));
    expect((await first).value).toMatchObject({ runId: 'run_0' });
    source.emit(updatedRun('run_a', 1));
    source.emit({ type: 'nested.started', runId: 'run_a', at: 2, call: call('running') });
    for (let i = 3; i < 10_000; i++) source.emit(updatedRun(i % 2 ? 'run_a' : 'run_b', i));
    source.emit({ type: 'nested.finished', runId: 'run_a', at: 10_000, call: call('ok') });
    expect(source.listeners()).toBe(1);
    const seen: StreamedRunEvent[] = [];
    for (let i = 0; i < 3; i++) seen.push((await stream.next()).value as StreamedRunEvent);
    expect(seen.map((e) => [e.type, e.runId, e.at])).toEqual([
      ['run.updated', 'run_a', 9999],
      ['nested.finished', 'run_a', 10_000],
      ['run.updated', 'run_b', 9998],
    ]);
    await stream.return(undefined);
  });

  it(`a reader that takes nothing for ${STALLED_READER_MS / 1000} s while events wait for it is dropped, freeing what it held; one that keeps taking is not`, async () => {
    let clock = 0;
    const source = eventSource();
    const stream = runEvents(source.subscribe, { maxQueued: 16, now: () => clock });
    const first = stream.next();
    source.emit(updatedRun('run_0', 0));
    await first;
    source.emit(updatedRun('run_a', 1));
    clock += STALLED_READER_MS - 1;
    source.emit(updatedRun('run_b', 2));
    expect(source.listeners()).toBe(1);
    clock += 1;
    source.emit(updatedRun('run_c', 3));
    expect(source.listeners()).toBe(0);
    await expect(stream.next()).rejects.toThrow(/took no event for 60 s while events waited for it/);

    const reading = runEvents(source.subscribe, { maxQueued: 16, now: () => clock });
    for (let i = 0; i < 5; i++) {
      const next = reading.next();
      source.emit(updatedRun(`run_${i}`, i));
      clock += STALLED_READER_MS;
      expect((await next).value).toMatchObject({ runId: `run_${i}` });
    }
    expect(source.listeners()).toBe(1);
    await reading.return(undefined);
  });

  it('a reader that keeps up is never dropped, however many events pass', async () => {
    const source = eventSource();
    const stream = runEvents(source.subscribe, { maxQueued: 16 });
    for (let i = 0; i < 100; i++) {
      const next = stream.next();
      source.emit(updated(i));
      expect((await next).value).toMatchObject({ at: i });
    }
    expect(source.listeners()).toBe(1);
    await stream.return(undefined);
    expect(source.listeners()).toBe(0);
  });
});

describe('event subscribers per owner', () => {
  it(`an API key's share is server.shares.client.eventStreams (${DEFAULT_SERVER_OPTIONS.shares.client.eventStreams}): one more is refused naming it; closing one frees a place; other owners are not counted`, async () => {
    const greedy = clientOwner('greedy');
    const cap = greedy.shares.eventStreams;
    const turn = await h.caller.turns.prepare({});
    const controllers = Array.from({ length: cap }, () => new AbortController());
    const streams = await Promise.all(controllers.map((c) => h.client('greedy', c.signal).events({ turnTokens: [turn.turnToken] })));
    expect(streams).toHaveLength(cap);
    const err = await rejection(h.client('greedy').events({ turnTokens: [turn.turnToken] }));
    expect(err.code).toBe('TOO_MANY_REQUESTS');
    expect(err.message).toContain('this owner (API client "greedy") already holds 8 open event subscriptions, the limit (server.shares.client.eventStreams)');
    const modest = new AbortController();
    await h.client('modest', modest.signal).events({ turnTokens: [turn.turnToken] });
    const keyless = new AbortController();
    await callerFor(h.gateway, clientAccess(TEST_OWNERS.anonymous), h.edge, keyless.signal).events({ turnTokens: [turn.turnToken] });
    controllers[0]?.abort();
    expect(h.edge.subscribers.held(greedy)).toBe(cap - 1);
    const again = new AbortController();
    await h.client('greedy', again.signal).events({ turnTokens: [turn.turnToken] });
    for (const c of [...controllers, modest, keyless, again]) c.abort();
    expect(h.edge.subscribers.held(greedy)).toBe(0);
  });

  it(`the operator (every playground tab at once) has a share of its own, server.shares.operator.eventStreams (${DEFAULT_SERVER_OPTIONS.shares.operator.eventStreams})`, async () => {
    const cap = OPERATOR.owner.shares.eventStreams;
    const controllers = Array.from({ length: cap }, () => new AbortController());
    const operatorStream = (c: AbortController) => callerFor(h.gateway, OPERATOR, h.edge, c.signal).events();
    await Promise.all(controllers.map(operatorStream));
    expect(h.edge.subscribers.held(OPERATOR.owner)).toBe(cap);
    const err = await rejection(callerFor(h.gateway, OPERATOR, h.edge).events());
    expect(err.code).toBe('TOO_MANY_REQUESTS');
    expect(err.message).toContain('(server.shares.operator.eventStreams)');
    // an API client still subscribes while the operator holds its whole share
    const turn = await h.caller.turns.prepare({});
    const client = new AbortController();
    await h.client('beside-operator', client.signal).events({ turnTokens: [turn.turnToken] });
    for (const c of [...controllers, client]) c.abort();
    expect(h.edge.subscribers.held(OPERATOR.owner)).toBe(0);
  });

  it('keyless clients share one small share (server.shares.anonymous.eventStreams), whatever address they come from', async () => {
    const cap = TEST_OWNERS.anonymous.shares.eventStreams;
    expect(cap).toBeLessThan(DEFAULT_SERVER_OPTIONS.shares.client.eventStreams);
    const turn = await h.caller.turns.prepare({});
    const controllers = Array.from({ length: cap }, () => new AbortController());
    await Promise.all(controllers.map((c) => callerFor(h.gateway, clientAccess(TEST_OWNERS.anonymous), h.edge, c.signal).events({ turnTokens: [turn.turnToken] })));
    const err = await rejection(callerFor(h.gateway, clientAccess(TEST_OWNERS.anonymous), h.edge).events({ turnTokens: [turn.turnToken] }));
    expect(err.message).toContain('the limit (server.shares.anonymous.eventStreams)');
    for (const c of controllers) c.abort();
  });
});

describe('cell source cap', () => {
  it(`a cell over maxSourceBytes (default ${DEFAULT_CODE_MODE_OPTIONS.maxSourceBytes}) fails invalid_input naming the limit, and the transcript does not keep its source`, async () => {
    const turn = await h.caller.turns.prepare({});
    const code = `return "${'é'.repeat(DEFAULT_CODE_MODE_OPTIONS.maxSourceBytes / 2)}"`;
    const result = await h.caller.exec({ agentRunId: turn.agentRunId, input: { code } });
    expect(result).toMatchObject({ status: 'failed', code: 'invalid_input' });
    expect(result.status === 'failed' && result.error).toMatch(/over the limit of 262144 bytes \(tools\.codeMode\.maxSourceBytes\); send a smaller cell/);
    const transcript = JSON.stringify(await h.caller.sessions.transcript({ sessionId: turn.sessionId }));
    expect(transcript.length).toBeLessThan(10_000);
    expect(transcript).toContain('not kept: over maxSourceBytes');
    const fits = await h.caller.exec({ agentRunId: turn.agentRunId, input: { code: `return "${'e'.repeat(1000)}".length` } });
    expect(fits).toMatchObject({ status: 'completed', value: 1000 });
  });
});
