// A run's trajectory as OpenTelemetry spans, serialized as OTLP JSON by the OpenTelemetry JS packages.
//
// Spans are made by the SDK's own tracer (sdk-trace-base) with the trajectory's recorded times, then
// serialized with otlp-transformer's JsonTraceSerializer: no hand-written encoder. The tree:
//   codemode.run (the whole run, createdAt to its last call's end)
//     codemode.exec / codemode.wait (one per model call)
//       codemode.call <tool> (one per nested call it dispatched)
// Suspensions (snapshots taken when the run parked, or when pool pressure moved it) are events on the
// exec/wait span they happened in. Times are passed as Dates: the SDK reads a bare number below the process's
// time origin as a performance.now() offset, never as epoch ms. Ids derive from the runId, so a run exports the same trace every time
// (a download and the live export agree).
import { createHash } from 'node:crypto';
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type IdGenerator, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { NestedCallRecord, SnapshotRecord, TrajectoryExport } from '../runs/types.ts';

/** The resource's service.name: what a tracing backend lists these traces under. */
export const OTLP_SERVICE_NAME = 'codemode-gateway';
/** The instrumentation scope of every span. */
export const OTLP_SCOPE_NAME = 'codemode-playground';

/** Trace and span ids derived from the runId: one run, one trace id, span ids in creation order. */
function runIds(runId: string): IdGenerator {
  let n = 0;
  const hex = (s: string, chars: number) => createHash('sha256').update(s).digest('hex').slice(0, chars);
  return { generateTraceId: () => hex(`trace\0${runId}`, 32), generateSpanId: () => hex(`span\0${runId}\0${n++}`, 16) };
}

/** The run's spans, finished, as the SDK records them (ReadableSpan). `now` ends what has not ended (a waiting run). */
export function trajectorySpans(t: TrajectoryExport, now: number = Date.now()): ReadableSpan[] {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': OTLP_SERVICE_NAME }),
    idGenerator: runIds(t.runId),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer(OTLP_SCOPE_NAME);
  const ends = t.calls.map((c) => c.endedAt ?? now);
  const start = t.calls[0]?.startedAt ?? now;
  const end = Math.max(start, ...ends);
  const root = tracer.startSpan(
    'codemode.run',
    { kind: SpanKind.INTERNAL, startTime: new Date(start), attributes: runAttributes(t) },
    context.active(),
  );
  t.calls.forEach((call, i) => {
    const callEnd = ends[i] ?? now;
    const span = tracer.startSpan(
      `codemode.${call.tool}`,
      {
        kind: SpanKind.INTERNAL,
        startTime: new Date(call.startedAt),
        attributes: {
          'codemode.call.id': call.callId,
          'codemode.tool_call_id': call.toolCallId,
          'codemode.status': call.status ?? 'running',
          'codemode.executor': t.executor,
          ...(call.errorCode ? { 'codemode.error_code': call.errorCode } : {}),
          ...(call.inputTokens !== undefined ? { 'codemode.tokens.input': call.inputTokens } : {}),
          ...(call.resultTokens !== undefined ? { 'codemode.tokens.result': call.resultTokens } : {}),
        },
      },
      trace.setSpan(context.active(), root),
    );
    for (const snap of t.snapshots) if (snap.at >= call.startedAt && snap.at <= callEnd) addSnapshotEvent(span, snap);
    for (const nested of call.nested) nestedSpan(tracer, span, nested, callEnd);
    if (call.status === 'failed') span.setStatus({ code: SpanStatusCode.ERROR, ...(call.errorCode ? { message: call.errorCode } : {}) });
    span.end(new Date(callEnd));
  });
  if (t.calls.some((c) => c.status === 'failed') && t.calls.at(-1)?.status === 'failed') root.setStatus({ code: SpanStatusCode.ERROR });
  root.end(new Date(end));
  const spans = exporter.getFinishedSpans();
  void provider.shutdown();
  return spans;
}

function runAttributes(t: TrajectoryExport): Attributes {
  return {
    'codemode.run_id': t.runId,
    'codemode.agent_run_id': t.agentRunId,
    'codemode.session_id': t.sessionId,
    'codemode.agent_id': t.agentId,
    'codemode.executor': t.executor,
    'codemode.language': t.language,
    'codemode.counters.search': t.counters.search,
    'codemode.counters.describe': t.counters.describe,
    'codemode.counters.call': t.counters.call,
    ...(t.client ? { 'codemode.client': t.client } : {}),
    ...(t.meter ? { 'codemode.tokens.code_mode': t.meter.codeMode.total, 'codemode.tokens.direct': t.meter.direct.total } : {}),
  };
}

function nestedSpan(tracer: ReturnType<BasicTracerProvider['getTracer']>, parent: Span, n: NestedCallRecord, parentEnd: number): void {
  const span = tracer.startSpan(
    `codemode.call ${n.tool}`,
    {
      kind: SpanKind.INTERNAL,
      startTime: new Date(n.startedAt),
      attributes: {
        'codemode.tool': n.tool,
        'codemode.kind': n.kind,
        'codemode.invocation_id': n.invocationId,
        'codemode.status': n.status,
        'codemode.bytes.input': n.inputBytes,
        ...(n.outputBytes !== undefined ? { 'codemode.bytes.output': n.outputBytes } : {}),
        ...(n.errorCode ? { 'codemode.error_code': n.errorCode } : {}),
        ...(n.approval ? { 'codemode.approval.approved': n.approval.approved } : {}),
      },
    },
    trace.setSpan(context.active(), parent),
  );
  if (n.status === 'error') span.setStatus({ code: SpanStatusCode.ERROR, ...(n.errorCode ? { message: n.errorCode } : {}) });
  // a call still pending when its exec/wait call returned (the run parked) ends with that call
  span.end(new Date(n.endedAt ?? Math.max(n.startedAt, parentEnd)));
}

function addSnapshotEvent(span: Span, snap: SnapshotRecord): void {
  span.addEvent(
    'codemode.suspension',
    {
      'codemode.suspension.reason': snap.reason,
      'codemode.snapshot.raw_bytes': snap.rawBytes,
      'codemode.snapshot.stored_bytes': snap.storedBytes,
      'codemode.snapshot.take_ms': snap.takeMs,
      ...(snap.restoreMs !== undefined ? { 'codemode.snapshot.restore_ms': snap.restoreMs } : {}),
    },
    new Date(snap.at),
  );
}

/** The run as an OTLP/JSON ExportTraceServiceRequest (the body an OTLP/HTTP JSON receiver takes, and the download). */
export function trajectoryOtlpJson(t: TrajectoryExport, now?: number): string {
  return trajectoriesOtlpJson([t], now);
}

/** Several runs in one request: one trace each (`codemode run --otlp` writes a command's cells this way). */
export function trajectoriesOtlpJson(ts: readonly TrajectoryExport[], now?: number): string {
  return new TextDecoder().decode(JsonTraceSerializer.serializeRequest(ts.flatMap((t) => trajectorySpans(t, now))));
}
