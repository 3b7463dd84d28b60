// OTLP export of a run's trajectory: the file parsed back with the OpenTelemetry transformer's own request
// types (parent/child structure, timings, suspension events), and the live export to a local OTLP/HTTP receiver.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IExportTraceServiceRequest, ISpan } from '@opentelemetry/otlp-transformer/build/src/trace/internal-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGatewayConfig } from '../config/load.ts';
import { ConfigError } from '../errors.ts';
import { QuickJsExecutor } from '../executors/quickjs/executor.ts';
import type { TrajectoryExport } from '../runs/types.ts';
import { expectCompleted, expectWaiting, testGateway } from '../testing.ts';
import { OTLP_SERVICE_NAME, trajectoryOtlpJson } from './otlp.ts';

type IKeyValue = ISpan['attributes'][number];

let executor: QuickJsExecutor;
beforeAll(async () => {
  executor = new QuickJsExecutor({ workers: 1 });
  await executor.ready();
});
afterAll(() => executor.close());

const CELL = 'const a = await sleep({ ms: 1 });\nawait yield_control("checkpoint");\nconst b = await sleep({ ms: 2 });\nreturn [a.sleptMs >= 1, b.sleptMs >= 2]';

/** The spans of an OTLP/JSON request, with the attributes as a plain record. */
function spansOf(req: IExportTraceServiceRequest): ISpan[] {
  return (req.resourceSpans ?? []).flatMap((r) => r.scopeSpans.flatMap((s) => s.spans ?? []));
}
function attrs(kvs: IKeyValue[]): Record<string, unknown> {
  return Object.fromEntries(kvs.map((kv) => [kv.key, kv.value.stringValue ?? kv.value.intValue ?? kv.value.boolValue ?? kv.value.doubleValue]));
}
const nanos = (ms: number) => BigInt(ms) * 1_000_000n;
const time = (t: ISpan['startTimeUnixNano']) => BigInt(t as string);

/** Runs CELL through exec, one wait; returns the run's trajectory. */
async function parkedAndResumed(gw: Awaited<ReturnType<typeof testGateway>>): Promise<TrajectoryExport> {
  const turn = gw.prepareTurn({});
  const waiting = expectWaiting(await gw.exec(turn.agentRunId, { code: CELL }));
  expectCompleted(await gw.wait(turn.agentRunId, { runId: waiting.runId }));
  const t = gw.trajectory(waiting.runId);
  if (!t) throw new Error('no trajectory');
  return t;
}

describe('OTLP JSON export of a run', () => {
  it('round-trips: run -> exec/wait -> nested calls as parent/child spans with the recorded times, the park as a suspension event', async () => {
    const gw = await testGateway({ executor });
    const t = await parkedAndResumed(gw);
    const text = gw.trajectoryOtlp(t.runId);
    expect(text).toBeDefined();
    const req = JSON.parse(text ?? '') as IExportTraceServiceRequest;
    expect(attrs(req.resourceSpans?.[0]?.resource?.attributes ?? [])['service.name']).toBe(OTLP_SERVICE_NAME);
    const spans = spansOf(req);
    // one run, two model calls, three nested requests (sleep, yield, sleep)
    expect(spans).toHaveLength(1 + t.calls.length + t.calls.reduce((n, c) => n + c.nested.length, 0));
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    const byId = new Map(spans.map((s) => [s.spanId as string, s]));
    const roots = spans.filter((s) => !s.parentSpanId);
    expect(roots.map((s) => s.name)).toEqual(['codemode.run']);
    const root = roots[0]!;
    expect(attrs(root.attributes)).toMatchObject({ 'codemode.run_id': t.runId, 'codemode.executor': 'quickjs', 'codemode.agent_run_id': t.agentRunId });
    const calls = spans.filter((s) => s.parentSpanId === root.spanId);
    expect(calls.map((s) => s.name).sort()).toEqual(['codemode.exec', 'codemode.wait']);
    for (const record of t.calls) {
      const span = calls.find((s) => attrs(s.attributes)['codemode.call.id'] === record.callId);
      expect(span).toBeDefined();
      if (!span) continue;
      // the SDK kept the trajectory's own times, to the millisecond
      expect(time(span.startTimeUnixNano)).toBe(nanos(record.startedAt));
      expect(time(span.endTimeUnixNano)).toBe(nanos(record.endedAt ?? 0));
      expect(time(span.startTimeUnixNano)).toBeGreaterThanOrEqual(time(root.startTimeUnixNano));
      expect(time(span.endTimeUnixNano)).toBeLessThanOrEqual(time(root.endTimeUnixNano));
      const children = spans.filter((s) => s.parentSpanId === span.spanId);
      expect(children.map((c) => attrs(c.attributes)['codemode.tool'])).toEqual(record.nested.map((n) => n.tool));
      for (const [i, child] of children.entries()) {
        const n = record.nested[i]!;
        expect(attrs(child.attributes)).toMatchObject({ 'codemode.kind': n.kind, 'codemode.status': n.status, 'codemode.bytes.input': n.inputBytes });
        expect(time(child.startTimeUnixNano)).toBe(nanos(n.startedAt));
        expect(byId.get(child.parentSpanId as string)).toBe(span);
      }
    }
    // the yield parked the run inside the exec call: a suspension event there, with the snapshot's sizes
    const exec = calls.find((s) => s.name === 'codemode.exec')!;
    const suspension = exec.events.find((e) => e.name === 'codemode.suspension');
    expect(suspension).toBeDefined();
    const snap = t.snapshots.find((s) => s.reason === 'yield')!;
    expect(attrs(suspension?.attributes ?? [])).toMatchObject({ 'codemode.suspension.reason': 'yield', 'codemode.snapshot.stored_bytes': snap.storedBytes });
    expect(time(suspension?.timeUnixNano ?? '0')).toBe(nanos(snap.at));
  });

  it('exports the same trace every time (ids derive from the run), and nothing for an unknown run', async () => {
    const gw = await testGateway({ executor });
    const t = await parkedAndResumed(gw);
    expect(trajectoryOtlpJson(t)).toBe(trajectoryOtlpJson(t));
    expect(gw.trajectoryOtlp('run_nope')).toBeUndefined();
  });

  it('a failed call carries an error status and its code', async () => {
    const gw = await testGateway({ executor });
    const turn = gw.prepareTurn({});
    const failed = await gw.exec(turn.agentRunId, { code: 'throw new Error("nope")' });
    expect(failed.status).toBe('failed');
    const runId = failed.telemetry.runId ?? '';
    const spans = spansOf(JSON.parse(gw.trajectoryOtlp(runId) ?? '{}') as IExportTraceServiceRequest);
    const exec = spans.find((s) => s.name === 'codemode.exec');
    expect(exec?.status.code).toBe(2);
  });
});

describe('live export to telemetry.otlp.url', () => {
  it('posts each ended run once to a local OTLP/HTTP receiver as the same JSON request the download gives', async () => {
    const bodies: Array<{ path: string; type: string; body: string; auth: string }> = [];
    let received: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => (received = resolve));
    const receiver = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        bodies.push({ path: req.url ?? '', type: String(req.headers['content-type']), body: Buffer.concat(chunks).toString('utf8'), auth: String(req.headers.authorization) });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        received();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/traces`;
      const gw = await testGateway({ executor, config: { telemetry: { otlp: { url, headers: { authorization: 'Bearer test' }, timeoutMs: 10_000 } } } });
      const t = await parkedAndResumed(gw);
      await arrived;
      await gw.close();
      expect(bodies).toHaveLength(1);
      const [first] = bodies;
      expect(first?.path).toBe('/v1/traces');
      expect(first?.type).toMatch(/application\/json/);
      expect(first?.auth).toBe('Bearer test');
      const live = spansOf(JSON.parse(first?.body ?? '{}') as IExportTraceServiceRequest);
      const download = spansOf(JSON.parse(trajectoryOtlpJson(t)) as IExportTraceServiceRequest);
      expect(live.map((s) => [s.traceId, s.spanId, s.parentSpanId, s.name, s.startTimeUnixNano])).toEqual(
        download.map((s) => [s.traceId, s.spanId, s.parentSpanId, s.name, s.startTimeUnixNano]),
      );
    } finally {
      receiver.close();
    }
  });
});

describe('telemetry config', () => {
  const base = { tools: { codeMode: { enabled: true } } };
  it('resolves url, headers and a default timeout', () => {
    const c = parseGatewayConfig({ ...base, telemetry: { otlp: { url: 'http://127.0.0.1:4318/v1/traces' } } }, '/tmp');
    expect(c.telemetry).toEqual({ otlp: { url: 'http://127.0.0.1:4318/v1/traces', headers: {}, timeoutMs: 10_000 } });
    expect(parseGatewayConfig(base, '/tmp').telemetry).toBeUndefined();
  });
  it('on a bad url, header or unknown key: a ConfigError that names the field and says what to write', () => {
    const bad = (telemetry: unknown) => {
      try {
        parseGatewayConfig({ ...base, telemetry }, '/tmp');
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as Error).message;
      }
      throw new Error('accepted');
    };
    expect(bad({ otlp: { url: 'ftp://x' } })).toMatch(/telemetry\.otlp\.url.*not an http\(s\) URL.*v1\/traces/s);
    expect(bad({ otlp: { url: 'http://x', headers: { a: 1 } } })).toMatch(/telemetry\.otlp\.headers\.a/);
    expect(bad({ otlp: { url: 'http://x', timeoutMs: 5 } })).toMatch(/at least 100 ms/);
    expect(bad({ otlp: { url: 'http://x', batch: true } })).toMatch(/batch/);
  });
});
