// Live trace export: when `telemetry.otlp.url` is configured, each run's trace goes to that OTLP/HTTP endpoint
// (JSON, through the OpenTelemetry OTLPTraceExporter) once the run has ended. A failed export is logged and
// dropped: tracing never changes a run's outcome or holds the Gateway up.
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import type { TelemetryOptions } from '../config/telemetry.ts';
import type { TrajectoryExport } from '../runs/types.ts';
import { trajectorySpans } from './otlp.ts';

/** The export's result code as the SDK reports it (ExportResultCode.SUCCESS is 0). */
const EXPORT_SUCCESS = 0;
/** Runs remembered as exported: a bound, so a long-lived Gateway does not keep every run id it ever saw. */
const MAX_REMEMBERED_RUNS = 4096;

export class OtlpLiveExport {
  private readonly exporter: OTLPTraceExporter;
  private readonly exported = new Set<string>();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    readonly options: NonNullable<TelemetryOptions['otlp']>,
    private readonly log: (line: string) => void,
  ) {
    this.exporter = new OTLPTraceExporter({ url: options.url, headers: { ...options.headers }, timeoutMillis: options.timeoutMs });
  }

  /** Exports an ended run's trace once (a second call for the same run does nothing). Resolves when the endpoint answered or the export failed. */
  exportRun(trajectory: TrajectoryExport): Promise<void> {
    if (this.exported.has(trajectory.runId)) return Promise.resolve();
    if (this.exported.size >= MAX_REMEMBERED_RUNS) this.exported.clear();
    this.exported.add(trajectory.runId);
    const spans = trajectorySpans(trajectory);
    const done = new Promise<void>((resolve) => {
      this.exporter.export(spans, (result) => {
        if (result.code !== EXPORT_SUCCESS) {
          this.log(`telemetry.otlp: exporting run ${trajectory.runId} to ${this.options.url} failed: ${result.error?.message ?? 'unknown error'}`);
        }
        resolve();
      });
    });
    this.inFlight.add(done);
    void done.then(() => this.inFlight.delete(done));
    return done;
  }

  /** Waits for exports in flight (bounded by their timeout), then shuts the exporter down. */
  async close(): Promise<void> {
    await Promise.all([...this.inFlight]);
    await this.exporter.shutdown().catch(() => undefined);
  }
}
