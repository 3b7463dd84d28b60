'use client';
// The model surface: the tools a model is given for this turn (exec, wait, direct-only) and the exec description.
import { memo, useState } from 'react';
import { Empty, ErrorNote, Panel, KeyValueList } from '../ui/Panel.tsx';
import { formatBytes, formatDuration } from '../ui/format.ts';
import type { Surface } from '../api.ts';

function OptionsGrid({ options }: { options: Surface['options'] }) {
  const rows: Array<[string, string]> = [
    ['executor', options.executor],
    ['timeoutMs', formatDuration(options.timeoutMs)],
    ['memoryLimitBytes', formatBytes(options.memoryLimitBytes)],
    ['maxOutputBytes', formatBytes(options.maxOutputBytes)],
    ['maxSnapshotBytes', formatBytes(options.maxSnapshotBytes)],
    ['maxPendingToolCalls', String(options.maxPendingToolCalls)],
    ['snapshotTtlSeconds', formatDuration(options.snapshotTtlSeconds * 1000)],
    ['search limit', `${options.searchDefaultLimit} / max ${options.maxSearchLimit}`],
  ];
  return (
    <KeyValueList rows={rows} />
  );
}

// memo: the page re-renders on every live event; this panel only when its own props change (issue 14)
export const SurfacePanel = memo(function SurfacePanel(props: { surface?: Surface; error?: string; loading: boolean }) {
  const [showDescription, setShowDescription] = useState(false);
  const { surface } = props;
  return (
    <Panel title="Model surface" testId="surface-panel">
      {props.error ? <ErrorNote title="Cannot load the model surface">{props.error}</ErrorNote> : null}
      {!surface && !props.error ? <Empty>{props.loading ? 'Loading…' : 'Pick an agent.'}</Empty> : null}
      {surface ? (
        <div className="space-y-2.5">
          <div className="flex items-center gap-2">
            <span
              data-testid="surface-codemode"
              data-codemode={surface.codeMode ? 'on' : 'off'}
              className={`shrink-0 whitespace-nowrap rounded px-1.5 py-px font-mono text-[11px] ${surface.codeMode ? 'bg-sky-900/60 text-sky-300' : 'bg-neutral-800 text-neutral-400'}`}
            >
              code mode {surface.codeMode ? 'on' : 'off'}
            </span>
            <span className="truncate text-[11px] text-neutral-500" title={surface.reason}>
              {surface.reason}
            </span>
          </div>
          <div>
            <div className="mb-1 text-[11px] text-neutral-500">Tools the model sees ({surface.tools.length})</div>
            <ul data-testid="surface-tools" className="space-y-1">
              {surface.tools.map((tool) => (
                <li key={tool.name} data-testid="surface-tool" data-name={tool.name} className="rounded border border-neutral-800 bg-neutral-950/50 px-2 py-1">
                  <div className="font-mono text-xs text-sky-300">{tool.name}</div>
                  <div className="line-clamp-2 text-[11px] text-neutral-400">{tool.description}</div>
                </li>
              ))}
            </ul>
          </div>
          {surface.execDescription ? (
            <div>
              <button
                type="button"
                data-testid="surface-exec-description-toggle"
                className="text-[11px] text-neutral-400 hover:text-neutral-100"
                onClick={() => setShowDescription(!showDescription)}
              >
                {showDescription ? '▾' : '▸'} exec description and quick index ({surface.execDescription.length} chars)
              </button>
              {showDescription ? (
                <pre data-testid="surface-exec-description" className="mt-1 max-h-96 overflow-auto whitespace-pre-wrap rounded bg-neutral-950 p-2 font-mono text-[11px] text-neutral-300">
                  {surface.execDescription}
                </pre>
              ) : null}
            </div>
          ) : null}
          <div>
            <div className="mb-1 text-[11px] text-neutral-500">Limits (tools.codeMode)</div>
            <OptionsGrid options={surface.options} />
          </div>
        </div>
      ) : null}
    </Panel>
  );
});
