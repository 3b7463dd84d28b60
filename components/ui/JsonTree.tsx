'use client';
// A collapsible JSON tree for result values and tool inputs (objects and arrays fold, scalars are colored).
import { useState } from 'react';

/** Objects and arrays deeper than this start folded, so a large value does not flood the panel. */
export const DEFAULT_OPEN_DEPTH = 2;
/** Children shown before a "show more" line. */
export const MAX_CHILDREN_SHOWN = 100;

function Scalar({ value }: { value: unknown }) {
  if (value === null) return <span className="text-neutral-500">null</span>;
  if (typeof value === 'string') return <span className="break-all text-emerald-300">{JSON.stringify(value)}</span>;
  if (typeof value === 'number') return <span className="text-sky-300">{String(value)}</span>;
  if (typeof value === 'boolean') return <span className="text-fuchsia-300">{String(value)}</span>;
  if (value === undefined) return <span className="text-neutral-500">undefined</span>;
  return <span className="text-neutral-300">{String(value)}</span>;
}

function Node({ name, value, depth, openDepth }: { name?: string; value: unknown; depth: number; openDepth: number }) {
  const isArray = Array.isArray(value);
  const isObject = value !== null && typeof value === 'object';
  const [open, setOpen] = useState(depth < openDepth);
  const [showAll, setShowAll] = useState(false);
  const label = name !== undefined ? <span className="text-neutral-400">{name}: </span> : null;
  if (!isObject) {
    return (
      <div className="pl-3">
        {label}
        <Scalar value={value} />
      </div>
    );
  }
  const entries: Array<[string, unknown]> = isArray ? value.map((v, i) => [String(i), v]) : Object.entries(value as Record<string, unknown>);
  const brackets = isArray ? ['[', ']'] : ['{', '}'];
  const shown = showAll ? entries : entries.slice(0, MAX_CHILDREN_SHOWN);
  return (
    <div className="pl-3">
      <button type="button" className="-ml-3 w-3 text-neutral-500 hover:text-neutral-200" onClick={() => setOpen(!open)} aria-label={open ? 'fold' : 'unfold'}>
        {open ? '▾' : '▸'}
      </button>
      {label}
      <span className="text-neutral-500">{brackets[0]}</span>
      {open ? (
        <>
          {shown.map(([k, v]) => (
            <Node key={k} name={isArray ? undefined : k} value={v} depth={depth + 1} openDepth={openDepth} />
          ))}
          {entries.length > shown.length ? (
            <button type="button" className="pl-3 text-neutral-500 hover:text-neutral-200" onClick={() => setShowAll(true)}>
              … {entries.length - shown.length} more
            </button>
          ) : null}
          <span className="text-neutral-500">{brackets[1]}</span>
        </>
      ) : (
        <button type="button" className="text-neutral-500 hover:text-neutral-200" onClick={() => setOpen(true)}>
          {' '}
          {entries.length} {isArray ? 'items' : 'keys'} {brackets[1]}
        </button>
      )}
    </div>
  );
}

export function JsonTree(props: { value: unknown; openDepth?: number; testId?: string }) {
  return (
    <div data-testid={props.testId} className="-ml-3 font-mono text-xs leading-5">
      <Node value={props.value} depth={0} openDepth={props.openDepth ?? DEFAULT_OPEN_DEPTH} />
    </div>
  );
}
