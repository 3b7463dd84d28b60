// One nested tool call as a row (tool, kind, error code, status, duration, bytes): the trajectory tree (where it opens its detail) and the session transcript both show it.
import { StatusBadge } from './StatusBadge.tsx';
import { formatBytes, formatDuration } from './format.ts';
import { ANSWERED_TITLE, answeredLabel } from './Replayed.tsx';
import type { NestedCall } from '../api.ts';

/** What a row shows: a live run's nested call and a transcript's nested-activity entry both carry these. */
export type NestedCallFields = Pick<NestedCall, 'tool' | 'kind' | 'status' | 'errorCode' | 'inputBytes' | 'outputBytes' | 'startedAt' | 'endedAt' | 'answeredBy'>;

/**
 * `now` makes an unfinished call show its elapsed time so far (a live run); without it an unfinished call
 * shows only `…` (a transcript row is a record, and the clock since it was written says nothing about the call).
 */
export function NestedCallRow({
  call,
  testId,
  now,
  open,
  onToggle,
}: {
  call: NestedCallFields;
  testId: string;
  now?: number;
  /** With onToggle: the tool name opens and closes the call's detail view (the trajectory; a transcript row has none). */
  open?: boolean;
  onToggle?: () => void;
}) {
  const end = call.endedAt ?? now;
  const answered = answeredLabel(call);
  return (
    <li data-testid={testId} data-tool={call.tool} data-kind={call.kind} data-status={call.status} data-answered-by={call.answeredBy} className="grid grid-cols-[minmax(6rem,1fr)_auto_auto_auto] items-center gap-2 py-px pl-5">
      <span className="truncate font-mono text-[11px]">
        <span className="text-neutral-600">└ </span>
        {onToggle ? (
          <button
            type="button"
            data-testid={`${testId}-open`}
            aria-expanded={open ?? false}
            aria-label={`${open ? 'hide' : 'show'} details of the ${call.tool} call`}
            onClick={onToggle}
            className="text-sky-300 underline decoration-dotted underline-offset-2 hover:text-sky-200"
          >
            {call.tool}
          </button>
        ) : (
          <span className="text-sky-300">{call.tool}</span>
        )}
        <span className="ml-1.5 text-neutral-500">{call.kind}</span>
        {call.errorCode ? <span className="ml-1.5 text-rose-300">{call.errorCode}</span> : null}
      </span>
      <StatusBadge status={call.status} label={answered} {...(call.answeredBy ? { title: ANSWERED_TITLE[call.answeredBy] } : {})} />
      <span className="w-20 text-right font-mono text-[11px] text-neutral-300">
        {end !== undefined ? formatDuration(Math.max(0, end - call.startedAt)) : ''}
        {call.endedAt === undefined ? '…' : ''}
      </span>
      <span className="w-28 text-right font-mono text-[11px] text-neutral-500" title="input / output bytes">
        {formatBytes(call.inputBytes)} → {call.outputBytes !== undefined ? formatBytes(call.outputBytes) : '…'}
      </span>
    </li>
  );
}
