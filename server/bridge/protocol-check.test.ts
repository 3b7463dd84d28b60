// The bridge message checks: what each accepts (normalized copies), what it refuses and how it says so.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkBridgeRequest, checkClockReadings, checkSettledOutcome, checkWorkerMessage, MAX_CLOCK_RUNS, MAX_NAME_CHARS, MAX_QUERY_CHARS, MAX_REQUEST_ID_CHARS, parseGuestJson } from './protocol-check.mjs';

const refused = (r: { ok: boolean; error?: string }) => {
  if (r.ok) throw new Error(`expected a refusal, got ${JSON.stringify(r)}`);
  return r.error!;
};

describe('checkBridgeRequest', () => {
  it.each([
    [{ id: 'r1', op: 'call', tool: 'read', input: { path: 'a' } }, { id: 'r1', op: 'call', tool: 'read', input: { path: 'a' } }],
    [{ id: 'r1', op: 'call', mcp: ['demo', 'echo'] }, { id: 'r1', op: 'call', mcp: ['demo', 'echo'], input: {} }],
    [{ id: 'r2', op: 'search', query: 'q', limit: '3' }, { id: 'r2', op: 'search', query: 'q' }],
    [{ id: 'r3', op: 'timer', ms: 5, timer: 1, extra: 'dropped' }, { id: 'r3', op: 'timer', ms: 5, timer: 1 }],
    [{ id: 'r4', op: 'store', action: 'set', key: 'k', json: '{"a":1}' }, { id: 'r4', op: 'store', action: 'set', key: 'k', json: '{"a":1}' }],
    [{ id: 'r5', op: 'yield', reason: '' }, { id: 'r5', op: 'yield', reason: '' }],
  ])('on a well-formed request: accepts a normalized copy (%j)', (input, expected) => {
    expect(checkBridgeRequest(input)).toEqual({ ok: true, value: expected });
  });

  it.each([
    [null, /must be an object, got null/],
    [[], /must be an object, got an array/],
    [{ op: 'all' }, /id must be a string/],
    [{ id: 'x'.repeat(MAX_REQUEST_ID_CHARS + 1), op: 'all' }, /id must be a string of 1 to/],
    [{ id: 'r1', op: 'steal' }, /unknown op/],
    [{ id: 'r1', op: 'call' }, /tool must be a non-empty name/],
    [{ id: 'r1', op: 'call', mcp: ['only-one'] }, /mcp must be \[server, tool\]/],
    [{ id: 'r1', op: 'timer', ms: -1, timer: 1 }, /ms must be a finite number >= 0/],
    [{ id: 'r1', op: 'timer', ms: 1, timer: 1.5 }, /timer must be an integer id/],
    [{ id: 'r1', op: 'store', action: 'set', key: 'k', json: { not: 'text' } }, /stored value is object, not a JSON string/],
    [{ id: 'r1', op: 'store', action: 'set', key: 'k', json: '{bad' }, /stored value is not valid JSON/],
    [{ id: 'r1', op: 'store', action: 'drop', key: 'k' }, /action must be "set" or "get"/],
    [{ id: 'r1', op: 'results', action: 'load' }, /ref must be a string/],
    // parsed JSON may carry its own non-function toString: the check never stringifies a field
    [{ id: 'r1', op: 'call', tool: { toString: 1, valueOf: 1 }, input: {} }, /tool must be a non-empty name/],
    [{ id: 'r1', op: 'call', mcp: 'demo', input: {} }, /mcp must be \[server, tool\]/],
    [{ id: 'r1', op: 'call', mcp: [{ toString: 1 }, { toString: 1 }], input: {} }, /mcp must be \[server, tool\]/],
    [{ id: 'r1', op: 'search', query: { toString: 1 } }, /query must be a string/],
    [{ id: 'r1', op: 'describe', tool: { toString: 1 } }, /tool must be a non-empty name/],
    [{ id: 'r1', op: 'describe', mcpServer: 1 }, /mcpServer must be a non-empty name/],
    [{ id: 'r1', op: 'timer', ms: '10', timer: 1 }, /ms must be a finite number/],
    [{ id: 'r1', op: 'timer', ms: { valueOf: 1 }, timer: 1 }, /ms must be a finite number/],
    [{ id: 'r1', op: 'store', action: 'get', key: { toString: 1 } }, /key must be a non-empty string/],
    [{ id: 'r1', op: 'results', action: 'load', ref: { toString: 1 } }, /ref must be a string/],
    [{ id: 'r1', op: 'results', action: 'delete' }, /ref must be a string/],
    [{ id: 'r1', op: 'results', action: 'save', json: { a: 1 } }, /saved value is object, not a JSON string/],
    [{ id: 'r1', op: 'results', action: 'list' }, /action must be "save", "load" or "delete"/],
    // a string past a length limit is named as one (a guest controller checks these first; only a bypass gets here)
    [{ id: 'r1', op: 'store', action: 'get', key: 'k'.repeat(MAX_NAME_CHARS + 1) }, /key must be a non-empty string of at most 1024 characters, got a string of 1025 characters/],
    [{ id: 'r1', op: 'store', action: 'get', key: '' }, /key must be a non-empty string of at most 1024 characters, got an empty string/],
    [{ id: 'r1', op: 'results', action: 'load', ref: 'r'.repeat(MAX_NAME_CHARS + 1) }, /ref must be a string of at most 1024 characters, got a string of 1025 characters/],
    [{ id: 'r1', op: 'search', query: 'q'.repeat(MAX_QUERY_CHARS + 1) }, /query must be a string of at most 65536 characters, got a string of 65537 characters/],
  ])('on a malformed request: refuses it naming what is wrong (%j)', (input, message) => {
    expect(refused(checkBridgeRequest(input))).toMatch(message);
  });
});

describe('checkSettledOutcome', () => {
  it('on a value that is JSON text: accepts it', () => {
    expect(checkSettledOutcome({ ok: true, json: '[1]' })).toEqual({ ok: true, value: { ok: true, json: '[1]' } });
  });

  it('on a value that is not JSON text: refuses it', () => {
    expect(refused(checkSettledOutcome({ ok: true, json: '{bad' }))).toMatch(/value is not valid JSON/);
    expect(refused(checkSettledOutcome({ ok: true, json: { a: 1 } }))).toMatch(/value is object, not a JSON string/);
  });

  it('on an error code only the host may report: refuses it', () => {
    expect(refused(checkSettledOutcome({ ok: false, error: 'x', code: 'memory_limit_exceeded' }))).toMatch(/only the host may report/);
  });

  it('on an empty error message: keeps a readable one', () => {
    expect(checkSettledOutcome({ ok: false, error: '' })).toMatchObject({ ok: true, value: { ok: false, error: expect.stringMatching(/empty error message/) } });
  });
});

describe('checkWorkerMessage', () => {
  it('on a message that names no leg: refuses it without a leg (the host drops it)', () => {
    const r = checkWorkerMessage({ t: 'settled', ok: true, valueJson: '1', droppedBytes: 0 });
    expect(r).toMatchObject({ ok: false });
    expect('legId' in r && r.legId).toBeFalsy();
  });

  it('on a malformed message for a leg: refuses it with that leg (the host fails the leg)', () => {
    expect(checkWorkerMessage({ t: 'requests', legId: 'leg1', requests: [null], cancels: [] })).toMatchObject({ ok: false, legId: 'leg1', error: expect.stringMatching(/got null/) });
    expect(checkWorkerMessage({ t: 'output', legId: 'leg1', lines: [{ kind: 'shout', text: 'x' }], droppedBytes: 0 })).toMatchObject({ ok: false, legId: 'leg1' });
    expect(checkWorkerMessage({ t: 'settled', legId: 'leg1', ok: false, error: 'x', code: 'made_up', droppedBytes: 0 })).toMatchObject({ ok: false, error: expect.stringMatching(/unknown error code/) });
    expect(checkWorkerMessage({ t: 'parked', legId: 'leg1', droppedBytes: 0, queued: [] })).toMatchObject({ ok: false, error: expect.stringMatching(/snapshot or a continuation id/) });
    expect(checkWorkerMessage({ t: 'teleport', legId: 'leg1' })).toMatchObject({ ok: false, error: expect.stringMatching(/unknown worker message type/) });
  });

  it("on an opened message of a resume: keeps its restore time and the snapshot's raw bytes", () => {
    expect(checkWorkerMessage({ t: 'opened', legId: 'leg1', restoreMs: 2, rawBytes: 65536, junk: 1 })).toEqual({
      ok: true,
      value: { t: 'opened', legId: 'leg1', restoreMs: 2, rawBytes: 65536 },
    });
    expect(checkWorkerMessage({ t: 'opened', legId: 'leg1', rawBytes: -1 })).toMatchObject({ ok: false, legId: 'leg1', error: 'rawBytes must be a count' });
    expect(checkWorkerMessage({ t: 'opened', legId: 'leg1', restoreMs: 'slow' })).toMatchObject({ ok: false, legId: 'leg1', error: 'restoreMs must be a duration' });
  });

  it("on a stored or saved value that is not JSON: the host's check passes the string on (the dispatcher refuses it), the worker's refuses it", () => {
    const store = { id: 'r1', op: 'store', action: 'set', key: 'k', json: '{not json' };
    const save = { id: 'r2', op: 'results', action: 'save', json: '[' };
    expect(checkWorkerMessage({ t: 'requests', legId: 'leg1', requests: [store, save], cancels: [] })).toEqual({
      ok: true,
      value: { t: 'requests', legId: 'leg1', requests: [store, save], cancels: [] },
    });
    expect(checkWorkerMessage({ t: 'requests', legId: 'leg1', requests: [{ ...store, json: { a: 1 } }], cancels: [] })).toMatchObject({
      ok: false,
      legId: 'leg1',
      error: expect.stringMatching(/the stored value is object, not a JSON string/),
    });
    expect(refused(checkBridgeRequest(store))).toMatch(/the stored value is not valid JSON/);
    expect(refused(checkBridgeRequest(save))).toMatch(/the saved value is not valid JSON/);
  });

  it('on a well-formed parked message: accepts a copy with its checked queue', () => {
    const snapshot = new Uint8Array(4);
    const r = checkWorkerMessage({ t: 'parked', legId: 'leg1', droppedBytes: 0, queued: [{ id: 'r9', op: 'all' }], snapshot, rawBytes: 4, storedBytes: 2, junk: 1 });
    expect(r).toEqual({ ok: true, value: { t: 'parked', legId: 'leg1', droppedBytes: 0, queued: [{ id: 'r9', op: 'all' }], snapshot, rawBytes: 4, storedBytes: 2 } });
  });

  it('on a pressure checkpoint: accepts one with a snapshot, refuses one with only a live continuation (it cannot move workers)', () => {
    const snapshot = new Uint8Array([1, 2]);
    const r = checkWorkerMessage({ t: 'pressure-parked', legId: 'leg1', droppedBytes: 0, queued: [], snapshot, rawBytes: 4, storedBytes: 2 });
    expect(r).toEqual({ ok: true, value: { t: 'pressure-parked', legId: 'leg1', droppedBytes: 0, queued: [], snapshot, rawBytes: 4, storedBytes: 2 } });
    expect(checkWorkerMessage({ t: 'pressure-parked', legId: 'leg1', droppedBytes: 0, queued: [], continuationId: 'c1' })).toMatchObject({
      ok: false,
      legId: 'leg1',
      error: expect.stringMatching(/must carry a snapshot/),
    });
  });

  it('on clock readings with a settled or parked leg: keeps a copy of well-formed pairs, refuses forged ones with the leg', () => {
    const clock = { runs: [12, 3, 1, 1], dropped: 0 };
    expect(checkWorkerMessage({ t: 'settled', legId: 'leg1', ok: true, valueJson: '1', droppedBytes: 0, clock })).toEqual({
      ok: true,
      value: { t: 'settled', legId: 'leg1', ok: true, valueJson: '1', droppedBytes: 0, clock },
    });
    const parked = checkWorkerMessage({ t: 'parked', legId: 'leg1', droppedBytes: 0, queued: [], continuationId: 'c1', clock });
    expect(parked.ok && 'clock' in parked.value && parked.value.clock).toEqual(clock);
    for (const bad of [{ runs: [1], dropped: 0 }, { runs: [1, 0], dropped: 0 }, { runs: [Infinity, 1], dropped: 0 }, { runs: [1, 1], dropped: -1 }, { runs: 'x', dropped: 0 }, { runs: new Array(2 * MAX_CLOCK_RUNS + 2).fill(1), dropped: 0 }]) {
      expect(checkWorkerMessage({ t: 'settled', legId: 'leg1', ok: false, error: 'e', droppedBytes: 0, clock: bad })).toMatchObject({ ok: false, legId: 'leg1' });
    }
    expect(refused(checkClockReadings({ runs: [1, 1.5], dropped: 0 }))).toMatch(/positive count/);
  });

  it('on a declined pressure checkpoint: keeps the stored size it was over, refuses one that is not a count', () => {
    expect(checkWorkerMessage({ t: 'pressure-declined', legId: 'leg1', storedBytes: 9 })).toEqual({ ok: true, value: { t: 'pressure-declined', legId: 'leg1', storedBytes: 9 } });
    expect(checkWorkerMessage({ t: 'pressure-declined', legId: 'leg1' })).toEqual({ ok: true, value: { t: 'pressure-declined', legId: 'leg1' } });
    expect(checkWorkerMessage({ t: 'pressure-declined', legId: 'leg1', storedBytes: -1 })).toMatchObject({ ok: false, legId: 'leg1' });
  });
});

describe('parseGuestJson', () => {
  it('on anything that is not a JSON string: refuses it, never throws', () => {
    expect(refused(parseGuestJson(null, 'x'))).toMatch(/x is null, not a JSON string/);
    expect(refused(parseGuestJson('[[[', 'x'))).toMatch(/x is not valid JSON/);
    expect(parseGuestJson('{"a":1}', 'x')).toEqual({ ok: true, value: { a: 1 } });
  });
});

describe('length limits', () => {
  it('on the prelude: its MAX_NAME_CHARS and MAX_QUERY_CHARS are the host limits (the guest refuses first, catchably)', () => {
    const prelude = readFileSync(new URL('../guest/prelude.js', import.meta.url), 'utf8');
    expect(/var MAX_NAME_CHARS = (\d+);/.exec(prelude)?.[1]).toBe(String(MAX_NAME_CHARS));
    expect(/var MAX_QUERY_CHARS = (\d+);/.exec(prelude)?.[1]).toBe(String(MAX_QUERY_CHARS));
  });
});
