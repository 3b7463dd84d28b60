// The replay lab's procedures through the router (operator caller): runs.fork, runs.cassette, exec with seed and replay, runs.saveAsTest.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRouterHarness, rejection, type RouterHarness } from '../testing.ts';

describe('router: replay lab', () => {
  let h: RouterHarness;
  beforeAll(async () => {
    h = await openRouterHarness();
  });
  afterAll(async () => {
    await h.gateway.close();
  });

  it('on runs.fork of a parked run: returns the fork; exec with replay of its cassette returns the recorded value', async () => {
    const turn = await h.caller.turns.prepare({});
    const parked = await h.caller.exec({ agentRunId: turn.agentRunId, input: { code: 'await yield_control("x"); const w = await weather_lookup({ city: "Oslo" }); return { city: w.city, r: Math.random() }' }, seed: 5 });
    expect(parked.status).toBe('waiting');
    const runId = parked.status === 'waiting' ? parked.runId : '';
    const fork = await h.caller.runs.fork({ runId, replies: [] });
    expect(fork.forkedFrom).toEqual({ runId, suspension: 1 });
    const done = await h.caller.wait({ agentRunId: turn.agentRunId, runId: fork.runId });
    // the parent still waits on its own yield
    expect(done.status).toBe('completed');
    const cassette = await h.caller.runs.cassette({ runId: fork.runId });
    let replayed = await h.caller.exec({ agentRunId: turn.agentRunId, input: {}, replay: cassette });
    while (replayed.status === 'waiting') replayed = await h.caller.wait({ agentRunId: turn.agentRunId, runId: replayed.runId });
    expect(replayed, JSON.stringify(replayed).slice(0, 600)).toMatchObject({ status: "completed" });
    expect(replayed.status === "completed" && replayed.value).toEqual(done.status === 'completed' && done.value);
    const saved = await h.caller.runs.saveAsTest({ runId: fork.runId });
    expect(saved.test.fileName).toMatch(/\.test\.ts$/);
    expect((await rejection(h.caller.runs.fork({ runId: fork.runId }))).message).toContain('no waiting run');
    await h.caller.turns.end({ agentRunId: turn.agentRunId });
  });
});
