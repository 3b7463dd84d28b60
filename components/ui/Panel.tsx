// The frame every panel uses: a titled, bordered box whose body scrolls on its own.
import type { ReactNode } from 'react';

export function Panel(props: {
  title: ReactNode;
  testId: string;
  actions?: ReactNode;
  children: ReactNode;
  className?: string;
  bodyClassName?: string;
}) {
  return (
    <section
      data-testid={props.testId}
      className={`flex min-h-0 flex-col rounded border border-neutral-800 bg-neutral-900/60 ${props.className ?? ''}`}
    >
      <header className="flex items-center gap-2 border-b border-neutral-800 px-2.5 py-1.5">
        <h2 className="text-[11px] font-semibold uppercase tracking-wider text-neutral-400">{props.title}</h2>
        <div className="ml-auto flex items-center gap-1.5">{props.actions}</div>
      </header>
      <div className={`min-h-0 flex-1 overflow-auto ${props.bodyClassName ?? 'p-2.5'}`}>{props.children}</div>
    </section>
  );
}

/** A titled part of a panel's body with a count beside its title (the session panel's store and transcript). */
export function PanelSection(props: { title: string; count: number; children: ReactNode }) {
  return (
    <section>
      <h3 className="mb-1 flex items-center gap-1.5 text-[11px] font-semibold text-neutral-400">
        {props.title}
        <span className="font-normal text-neutral-600">{props.count}</span>
      </h3>
      {props.children}
    </section>
  );
}

export function Empty(props: { children: ReactNode; testId?: string }) {
  return (
    <p data-testid={props.testId} className="px-1 py-2 text-xs text-neutral-500">
      {props.children}
    </p>
  );
}

/** A clear error line: what failed and, in `children`, what to do. */
export function ErrorNote(props: { title: string; children: ReactNode; testId?: string }) {
  return (
    <div data-testid={props.testId} role="alert" className="rounded border border-rose-900/70 bg-rose-950/40 px-2.5 py-2 text-xs text-rose-200">
      <div className="font-semibold text-rose-300">{props.title}</div>
      <div className="mt-0.5 whitespace-pre-wrap break-words font-mono">{props.children}</div>
    </div>
  );
}

export function Button(props: {
  children: ReactNode;
  onClick?: () => void;
  disabled?: boolean;
  kind?: 'primary' | 'default' | 'danger' | 'ghost';
  testId?: string;
  title?: string;
  type?: 'button' | 'submit';
}) {
  const kind = props.kind ?? 'default';
  const colors = {
    primary: 'bg-sky-600 text-white hover:bg-sky-500 border-sky-500',
    default: 'bg-neutral-800 text-neutral-200 hover:bg-neutral-700 border-neutral-700',
    danger: 'bg-rose-900/60 text-rose-100 hover:bg-rose-800 border-rose-800',
    ghost: 'bg-transparent text-neutral-300 hover:bg-neutral-800 border-transparent',
  }[kind];
  return (
    <button
      type={props.type ?? 'button'}
      data-testid={props.testId}
      title={props.title}
      disabled={props.disabled}
      onClick={props.onClick}
      className={`rounded border px-2 py-0.5 text-xs font-medium disabled:cursor-not-allowed disabled:opacity-40 ${colors}`}
    >
      {props.children}
    </button>
  );
}

/** A two-column list of labels and values (limits, telemetry). */
export function KeyValueList(props: { rows: ReadonlyArray<readonly [string, ReactNode]>; testId?: string }) {
  return (
    <dl data-testid={props.testId} className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 font-mono text-[11px]">
      {props.rows.map(([k, v]) => (
        <div key={k} className="contents">
          <dt className="text-neutral-500">{k}</dt>
          <dd className="text-neutral-300">{v}</dd>
        </div>
      ))}
    </dl>
  );
}
