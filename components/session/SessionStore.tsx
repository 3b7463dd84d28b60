'use client';
// The session store view: each committed key with a one-line preview that unfolds into a tree, network provenance flagged.
import { useState } from 'react';
import { JsonTree } from '../ui/JsonTree.tsx';
import { Empty, PanelSection } from '../ui/Panel.tsx';
import type { SessionStoreEntry } from '../api.ts';

/** A store value's one-line preview: enough to recognize it; the row unfolds into a tree for the rest. */
export const MAX_VALUE_PREVIEW_CHARS = 72;

export function NetworkFlag({ testId }: { testId?: string }) {
  return (
    <span
      data-testid={testId}
      title="network-content provenance: a cell that loads it is treated as holding untrusted content"
      className="rounded border border-amber-800 bg-amber-950/60 px-1 font-mono text-[10px] leading-4 text-amber-300"
    >
      network
    </span>
  );
}

function parseJson(json: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(json) as unknown };
  } catch {
    return undefined;
  }
}

function StoreRow({ entry }: { entry: SessionStoreEntry }) {
  const [open, setOpen] = useState(false);
  const preview = entry.json.length > MAX_VALUE_PREVIEW_CHARS ? `${entry.json.slice(0, MAX_VALUE_PREVIEW_CHARS - 1)}…` : entry.json;
  const parsed = open ? parseJson(entry.json) : undefined;
  return (
    <li data-testid="session-store-row" data-key={entry.key} data-network={entry.networkContent ? 'true' : 'false'}>
      <button
        type="button"
        onClick={() => setOpen(!open)}
        aria-expanded={open}
        className="grid w-full grid-cols-[minmax(4rem,auto)_1fr_auto] items-center gap-2 rounded px-1 py-px text-left hover:bg-neutral-800"
      >
        <span data-testid="session-store-key" className="truncate text-sky-300">
          <span className="mr-1 text-neutral-600">{open ? '▾' : '▸'}</span>
          {entry.key}
        </span>
        <span data-testid="session-store-value" className="truncate text-emerald-300/90" title={preview}>
          {preview}
        </span>
        {entry.networkContent ? <NetworkFlag testId="session-store-network" /> : <span />}
      </button>
      {open ? (
        <div className="ml-4 rounded bg-neutral-950 p-1">
          {parsed ? <JsonTree value={parsed.value} /> : <pre className="whitespace-pre-wrap break-all text-neutral-300">{entry.json}</pre>}
        </div>
      ) : null}
    </li>
  );
}

export function SessionStoreView({ store, loading }: { store: readonly SessionStoreEntry[]; loading: boolean }) {
  return (
    <PanelSection title="Store" count={store.length}>
      {store.length === 0 ? (
        <Empty testId="session-store-empty">{loading ? 'Loading…' : 'Empty. A cell that calls store(key, value) commits its writes here when it completes.'}</Empty>
      ) : (
        <ul data-testid="session-store" className="space-y-px">
          {store.map((entry) => (
            <StoreRow key={entry.key} entry={entry} />
          ))}
        </ul>
      )}
    </PanelSection>
  );
}
