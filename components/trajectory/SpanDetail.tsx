'use client';
// The detail of one nested call (a span): identity, parent, timings, bytes, approval and hook decisions and the bounded previews, with copy buttons.
import { useState } from 'react';
import { Button, KeyValueList } from '../ui/Panel.tsx';
import { formatBytes, formatDuration } from '../ui/format.ts';
import type { ControlCall, NestedCall } from '../api.ts';

function time(at: number): string {
  return new Date(at).toISOString().slice(11, 23);
}

function Preview({ label, text, testId }: { label: string; text: string; testId: string }) {
  const [copied, setCopied] = useState<string>();
  const copy = () =>
    navigator.clipboard.writeText(text).then(
      () => setCopied('copied'),
      // a page without clipboard permission still shows the text to select by hand
      (err: unknown) => setCopied(`copy failed: ${(err as Error).message}`),
    );
  return (
    <div>
      <div className="mb-0.5 flex items-center gap-2 text-[11px] text-neutral-500">
        {label}
        <Button kind="ghost" testId={`${testId}-copy`} onClick={() => void copy()} title={`copy the ${label}`}>
          copy
        </Button>
        {copied ? <span className="text-neutral-400">{copied}</span> : null}
      </div>
      <pre data-testid={testId} className="max-h-40 overflow-auto whitespace-pre-wrap break-all rounded bg-neutral-950 p-1.5 font-mono text-[11px] text-neutral-200">
        {text}
      </pre>
    </div>
  );
}

/** What each before_tool_call hook decided, in the order they ran. */
export function hookText(hooks: NestedCall['hooks']): string {
  if (hooks === undefined || hooks.length === 0) return 'no before_tool_call hook ran';
  return hooks.map((h) => `${h.plugin}: ${h.decision}${h.reason ? ` (${h.reason})` : ''}`).join('; ');
}

export function SpanDetail({ call, parent, now }: { call: NestedCall; parent?: ControlCall | undefined; now: number }) {
  const end = call.endedAt ?? now;
  const rows: Array<[string, string]> = [
    ['invocation id', call.invocationId],
    ['request id', call.requestId],
    ['tool', `${call.tool} (${call.kind})`],
    ['status', `${call.status}${call.errorCode ? `: ${call.errorCode}` : ''}`],
    ['parent', parent ? `${parent.tool} ${parent.callId} (tool call ${parent.toolCallId})` : call.parentCallId],
    ['started', `${time(call.startedAt)}${parent ? ` (+${formatDuration(Math.max(0, call.startedAt - parent.startedAt))} into ${parent.tool})` : ''}`],
    ['ended', call.endedAt !== undefined ? time(call.endedAt) : 'not yet'],
    ['duration', `${formatDuration(Math.max(0, end - call.startedAt))}${call.endedAt === undefined ? ' so far' : ''}`],
    ['bytes in / out', `${formatBytes(call.inputBytes)} / ${call.outputBytes !== undefined ? formatBytes(call.outputBytes) : '—'}`],
    ['approval', call.approval ? `${call.approval.approved ? 'approved' : 'denied'}${call.approval.reason ? `: ${call.approval.reason}` : ''}` : 'not asked'],
    ['hooks', hookText(call.hooks)],
  ];
  return (
    <div data-testid="span-detail" data-invocation-id={call.invocationId} className="my-1 ml-5 space-y-1.5 rounded border border-neutral-800 bg-neutral-900/60 p-2">
      <KeyValueList rows={rows} testId="span-detail-fields" />
      {call.inputPreview !== undefined ? <Preview label="input" text={call.inputPreview} testId="span-input" /> : null}
      {call.outputPreview !== undefined ? <Preview label="output" text={call.outputPreview} testId="span-output" /> : null}
      {call.errorPreview !== undefined ? <Preview label="error" text={call.errorPreview} testId="span-error" /> : null}
      <p className="text-[11px] text-neutral-500">
        Previews are redacted like cell source and cut at 2,000 characters; they live in run history while the run is kept, not in the session transcript.
      </p>
    </div>
  );
}
