'use client';
// Fork a waiting run from the waiting board (replay lab): edit replies for its pending calls, then runs.fork restores its snapshot into a new run.
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { JsonEditor } from '../ui/JsonEditor.tsx';
import { Button, ErrorNote } from '../ui/Panel.tsx';
import { errorMessage } from '../playground/errors.ts';
import { useTRPC } from '../trpc.ts';
import type { Run } from '../api.ts';

/** Whether the run can be forked: only a waiting QuickJS run holds a snapshot to copy. */
export function forkable(run: Run): boolean {
  // a durable run not resumed here is only a sealed row: Wait restores it first
  return run.state === 'waiting' && run.executor === 'quickjs' && !run.durableRow && !run.heldBy;
}

/** A starting point for the replies: one `{ id, result }` per pending call a fork may answer (tool calls, not timers or queued ones). */
export function replyTemplate(run: Run): string {
  const answerable = run.pendingToolCalls.filter((p) => p.state !== 'queued' && p.tool !== 'setTimeout');
  return JSON.stringify(
    answerable.map((p) => ({ id: p.id, result: { edited: true, tool: p.tool } })),
    null,
    2,
  );
}

type Replies = Array<{ id: string; result?: unknown; error?: string; code?: string }>;

/** Checks the editor text is a JSON array of objects (the Gateway checks the rest and names what is wrong). */
function parseReplies(text: string): Replies | string {
  let value: unknown;
  try {
    value = JSON.parse(text.trim() === '' ? '[]' : text);
  } catch (err) {
    return `replies: not JSON (${(err as Error).message}); write an array such as [{ "id": "r1", "result": 42 }]`;
  }
  if (!Array.isArray(value) || value.some((r) => r === null || typeof r !== 'object' || Array.isArray(r))) {
    return 'replies: write an array of { "id", "result" } or { "id", "error", "code"? } objects ([] dispatches every pending call again)';
  }
  return value as Replies;
}

export function ForkForm(props: { run: Run; onClose: () => void }) {
  const trpc = useTRPC();
  const { mutateAsync: forkAsync, isPending } = useMutation(trpc.runs.fork.mutationOptions());
  const [text, setText] = useState(() => replyTemplate(props.run));
  const [error, setError] = useState<string>();
  const [forked, setForked] = useState<string>();
  const submit = async () => {
    const replies = parseReplies(text);
    if (typeof replies === 'string') return setError(replies);
    setError(undefined);
    try {
      const fork = await forkAsync({ runId: props.run.runId, replies });
      setForked(fork.runId);
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  return (
    <div data-testid="fork-form" className="space-y-1 rounded border border-violet-900/60 bg-violet-950/20 p-2">
      <div className="text-[11px] text-neutral-400">
        Fork restores this run&apos;s snapshot into a new run of the same turn. Each reply answers a pending call by its id (a
        <span className="font-mono"> result</span>, or an <span className="font-mono">error</span> with an optional
        <span className="font-mono"> code</span>); calls left out are dispatched again for the fork. This run stays as it is.
      </div>
      <JsonEditor label={`replies for the fork of run ${props.run.runId}`} testId="fork-replies" heightClassName="h-24" value={text} onChange={setText} />
      {error ? <ErrorNote title="Not forked">{error}</ErrorNote> : null}
      <div className="flex items-center gap-1.5">
        <Button kind="primary" testId="fork-submit" disabled={isPending} onClick={() => void submit()}>
          {isPending ? 'Forking…' : 'Fork'}
        </Button>
        <Button kind="ghost" testId="fork-cancel" onClick={props.onClose}>
          close
        </Button>
        {forked ? (
          <span data-testid="fork-created" data-run-id={forked} className="text-[11px] text-emerald-300">
            forked as <span className="font-mono">{forked}</span>: Wait on it on this board
          </span>
        ) : null}
      </div>
    </div>
  );
}
