'use client';
// The token meter of the shown run: code mode against direct tool calling, labelled as the estimate it is.
import type { Meter } from '../api.ts';
import { KeyValueList } from '../ui/Panel.tsx';
import { breakEvenText, estimateNote, formatTokens, meterSegments, ratioText, totalsText, type MeterSegment } from './meterView.ts';

function Bar({ label, segments, color, testId }: { label: string; segments: MeterSegment[]; color: string; testId: string }) {
  return (
    <div className="flex items-center gap-2">
      <span className="w-20 shrink-0 text-right text-[10px] text-neutral-500">{label}</span>
      <div className="relative h-3 flex-1 rounded bg-neutral-900" data-testid={testId} data-turns={segments.length} role="img" aria-label={`${label}: ${segments.length} model turns`}>
        {segments.map((s) => (
          <div
            key={s.turn}
            className={`absolute top-0 h-3 border-r border-neutral-950 ${color}`}
            style={{ left: `${s.leftPct}%`, width: `${s.widthPct}%` }}
            title={`${label}, model turn ${s.turn}: ${formatTokens(s.tokens)} tokens`}
          />
        ))}
      </div>
    </div>
  );
}

export function TokenMeterView({ meter }: { meter: Meter }) {
  const segments = meterSegments(meter);
  const totals = totalsText(meter);
  const rows: Array<[string, string]> = [
    ['code mode', totals.codeMode],
    ['direct calling', totals.direct],
    ['ratio', ratioText(meter)],
    ['break-even', breakEvenText(meter)],
  ];
  return (
    <div data-testid="token-meter" data-code-mode={meter.codeMode.total} data-direct={meter.direct.total} data-ratio={meter.ratio.toFixed(3)} className="space-y-1.5">
      <KeyValueList rows={rows} testId="token-meter-totals" />
      <div className="space-y-1" aria-label="tokens per model turn">
        <Bar label="code mode" segments={segments.codeMode} color="bg-emerald-500/80" testId="token-meter-code-mode" />
        <Bar label="direct" segments={segments.direct} color="bg-amber-500/80" testId="token-meter-direct" />
      </div>
      <p className="text-[10px] text-neutral-500" data-testid="token-meter-note">
        {estimateNote(meter.encoding)}
      </p>
    </div>
  );
}
