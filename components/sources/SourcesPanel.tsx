'use client';
// Sources: add and remove MCP servers (stdio command, Streamable HTTP URL) and OpenAPI documents at runtime,
// each with its state; "save to config" writes one into the config file. A stdio command runs only after
// the operator confirmed the exact command line the Gateway will run.
import { useMutation, useQuery } from '@tanstack/react-query';
import { memo, useEffect, useRef, useState } from 'react';
import { useTRPC, useTRPCClient } from '../trpc.ts';
import { errorMessage } from '../playground/errors.ts';
import { Button, Empty, ErrorNote, Panel } from '../ui/Panel.tsx';
import { addInput, catalogSignature, EMPTY_FORM, stateLine, stdioParts, type SourceForm, type SourceKind } from './form.ts';

const KINDS: ReadonlyArray<{ id: SourceKind; label: string }> = [
  { id: 'mcp-stdio', label: 'MCP (stdio command)' },
  { id: 'mcp-http', label: 'MCP (Streamable HTTP)' },
  { id: 'openapi', label: 'OpenAPI document' },
];

const STATE_COLORS: Record<string, string> = {
  connected: 'text-emerald-300',
  connecting: 'text-sky-300',
  disconnected: 'text-amber-300',
  failed: 'text-rose-300',
};

const input = 'w-full rounded border border-neutral-700 bg-neutral-950 px-1.5 py-0.5 font-mono text-xs text-neutral-200';

function Field(props: { label: string; children: React.ReactNode }) {
  return (
    <label className="block space-y-0.5 text-[11px] text-neutral-400">
      <span>{props.label}</span>
      {props.children}
    </label>
  );
}

/** `onCatalogChanged` runs when a source connects, fails, changes its tools or goes: the page refreshes its catalog and turn. */
// memo: the page re-renders on every live event; this panel only when its own props change (issue 14)
export const SourcesPanel = memo(function SourcesPanel(props: { onCatalogChanged: () => void }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const [form, setForm] = useState<SourceForm>(EMPTY_FORM);
  const [confirming, setConfirming] = useState<string>();
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const list = useQuery({
    ...trpc.sources.list.queryOptions(),
    refetchInterval: (q) => (q.state.data?.some((s) => s.state === 'connecting' || s.state === 'disconnected') ? 500 : 5000),
  });
  const add = useMutation(trpc.sources.add.mutationOptions());
  const remove = useMutation(trpc.sources.remove.mutationOptions());
  const save = useMutation(trpc.sources.save.mutationOptions());

  const signature = catalogSignature(list.data);
  const seen = useRef<string | undefined>(undefined);
  const { onCatalogChanged } = props;
  useEffect(() => {
    if (list.data === undefined) return;
    if (seen.current !== undefined && seen.current !== signature) onCatalogChanged();
    seen.current = signature;
  }, [signature, list.data, onCatalogChanged]);

  const set = (patch: Partial<SourceForm>) => {
    setForm((f) => ({ ...f, ...patch }));
    setConfirming(undefined);
  };

  const submit = async (confirmed?: string) => {
    setError(undefined);
    setNotice(undefined);
    try {
      if (form.kind === 'mcp-stdio' && confirmed === undefined) {
        const { commandLine } = await client.sources.commandLine.query(stdioParts(form));
        addInput(form, commandLine); // the other fields' errors before the confirmation
        setConfirming(commandLine);
        return;
      }
      await add.mutateAsync(addInput(form, confirmed));
      setConfirming(undefined);
      setForm({ ...EMPTY_FORM, kind: form.kind });
      await list.refetch();
      // wait for its first connection or load, then refresh once more so its state shows without a poll
      void client.sources.settled.query({ name: form.name.trim() }).then(() => list.refetch());
    } catch (err) {
      setError(errorMessage(err));
    }
  };

  const onFile = async (file: File | undefined) => {
    if (!file) return set({ documentText: undefined, documentFileName: undefined });
    set({ documentText: await file.text(), documentFileName: file.name, documentUrl: '' });
  };

  return (
    <Panel title="Sources" testId="sources-panel">
      <div className="space-y-3">
        {list.error ? <ErrorNote title="Cannot list the sources">{errorMessage(list.error)}</ErrorNote> : null}
        {list.data && list.data.length === 0 ? <Empty>No MCP servers or OpenAPI documents yet: add one below.</Empty> : null}
        <ul className="space-y-1.5" data-testid="sources-list">
          {list.data?.map((s) => (
            <li key={s.name} data-testid="source-row" data-name={s.name} data-state={s.state} className="rounded border border-neutral-800 bg-neutral-950/50 px-2 py-1">
              <div className="flex items-center gap-2">
                <span className="font-mono text-xs text-sky-300">{s.name}</span>
                <span className="text-[10px] uppercase text-neutral-500">{s.kind}</span>
                <span className="text-[10px] text-neutral-500">{s.origin === 'config' ? 'in config' : 'added (not saved)'}</span>
                <span className="ml-auto flex gap-1">
                  {s.origin === 'added' ? (
                    <Button
                      testId="source-save"
                      title="write this source into the config file (the previous file is kept as .bak)"
                      onClick={() =>
                        save
                          .mutateAsync({ name: s.name })
                          .then((r) => (setNotice(`saved "${s.name}" to ${r.file} (previous file: ${r.backup})`), list.refetch()))
                          .catch((err: unknown) => setError(errorMessage(err)))
                      }
                    >
                      save to config
                    </Button>
                  ) : null}
                  <Button
                    kind="ghost"
                    testId="source-remove"
                    title="stop and forget this source (the config file is not changed)"
                    onClick={() => remove.mutateAsync({ name: s.name }).then(() => list.refetch()).catch((err: unknown) => setError(errorMessage(err)))}
                  >
                    remove
                  </Button>
                </span>
              </div>
              <div data-testid="source-state" className={`text-[11px] ${STATE_COLORS[s.state] ?? 'text-neutral-400'}`}>
                {stateLine(s)}
              </div>
              <div className="truncate font-mono text-[10px] text-neutral-500" title={s.detail}>
                {s.detail}
              </div>
            </li>
          ))}
        </ul>

        <form
          data-testid="source-form"
          className="space-y-1.5 rounded border border-neutral-800 p-2"
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <div className="flex gap-2">
            <Field label="kind">
              <select data-testid="source-kind" className={input} value={form.kind} onChange={(e) => set({ kind: e.target.value as SourceKind })}>
                {KINDS.map((k) => (
                  <option key={k.id} value={k.id}>
                    {k.label}
                  </option>
                ))}
              </select>
            </Field>
            <Field label="name">
              <input data-testid="source-name" className={input} value={form.name} placeholder="demo2" onChange={(e) => set({ name: e.target.value })} />
            </Field>
          </div>
          {form.kind === 'mcp-stdio' ? (
            <>
              <Field label="command">
                <input data-testid="source-command" className={input} value={form.command} placeholder="node" onChange={(e) => set({ command: e.target.value })} />
              </Field>
              <Field label="arguments (one per line)">
                <textarea data-testid="source-args" className={input} rows={2} value={form.args} placeholder="demo/mcp/server.mjs" onChange={(e) => set({ args: e.target.value })} />
              </Field>
              <Field label="environment (KEY=value per line)">
                <textarea data-testid="source-env" className={input} rows={1} value={form.env} onChange={(e) => set({ env: e.target.value })} />
              </Field>
            </>
          ) : null}
          {form.kind === 'mcp-http' ? (
            <>
              <Field label="URL">
                <input data-testid="source-url" className={input} value={form.url} placeholder="http://127.0.0.1:4000/mcp" onChange={(e) => set({ url: e.target.value })} />
              </Field>
              <Field label="headers (Name: value per line)">
                <textarea data-testid="source-headers" className={input} rows={1} value={form.headers} onChange={(e) => set({ headers: e.target.value })} />
              </Field>
            </>
          ) : null}
          {form.kind === 'openapi' ? (
            <>
              <Field label="document file (JSON or YAML)">
                <input data-testid="source-file" type="file" accept=".json,.yaml,.yml,application/json,application/yaml" className="text-xs" onChange={(e) => void onFile(e.target.files?.[0])} />
              </Field>
              <Field label="or document URL or path on the Gateway's machine">
                <input
                  data-testid="source-document-url"
                  className={input}
                  value={form.documentUrl}
                  placeholder="node_modules/@octokit/openapi/generated/api.github.com.json"
                  disabled={form.documentText !== undefined}
                  onChange={(e) => set({ documentUrl: e.target.value })}
                />
              </Field>
              <Field label="base URL (default: the document's servers[0])">
                <input data-testid="source-base-url" className={input} value={form.baseUrl} placeholder="http://127.0.0.1:4011" onChange={(e) => set({ baseUrl: e.target.value })} />
              </Field>
              <Field label="Authorization header value (optional)">
                <input data-testid="source-auth" className={input} value={form.authValue} onChange={(e) => set({ authValue: e.target.value })} />
              </Field>
            </>
          ) : null}
          {confirming !== undefined ? (
            <div data-testid="source-confirm" role="alertdialog" aria-label="confirm the command line" className="space-y-1 rounded border border-amber-800 bg-amber-950/40 p-2 text-[11px] text-amber-200">
              <div>This runs a program on the Gateway machine, exactly:</div>
              <pre data-testid="source-command-line" className="whitespace-pre-wrap break-all font-mono text-xs text-amber-100">
                {confirming}
              </pre>
              <div className="flex gap-1">
                <Button kind="danger" testId="source-confirm-run" onClick={() => void submit(confirming)}>
                  run this command
                </Button>
                <Button kind="ghost" onClick={() => setConfirming(undefined)}>
                  cancel
                </Button>
              </div>
            </div>
          ) : (
            <Button kind="primary" type="submit" testId="source-add" disabled={add.isPending}>
              {form.kind === 'mcp-stdio' ? 'review command…' : 'add source'}
            </Button>
          )}
          {error ? (
            <div role="alert" data-testid="source-error" className="text-[11px] text-rose-300">
              {error}
            </div>
          ) : null}
          {notice ? (
            <div data-testid="source-notice" className="text-[11px] text-emerald-300">
              {notice}
            </div>
          ) : null}
        </form>
      </div>
    </Panel>
  );
});
