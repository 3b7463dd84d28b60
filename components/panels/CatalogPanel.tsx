'use client';
// The hidden catalog grouped by source, with projected callable names, declarations, policy and MCP servers.
import { memo, useMemo, useState } from 'react';
import { JsonEditor } from '../ui/JsonEditor.tsx';
import { Button, Empty, ErrorNote, Panel } from '../ui/Panel.tsx';
import { StatusBadge } from '../ui/StatusBadge.tsx';
import type { CatalogData, CatalogTool, ClientToolSpec, ToolSource } from '../api.ts';
import { parseClientTools } from '../playground/clientTools.ts';
import { useRovingFocus } from '../ui/roving.ts';
import type { Roving } from '../ui/roving.ts';

const SOURCES: Array<{ source: ToolSource; label: string }> = [
  { source: 'core', label: 'Core' },
  { source: 'bundled_plugin', label: 'Bundled plugins' },
  { source: 'external_plugin', label: 'External plugins' },
  { source: 'openapi', label: 'OpenAPI sources' },
  { source: 'mcp', label: 'MCP servers' },
  { source: 'client', label: 'Client tools' },
];

/** Where a tool of the effective set ends up for this turn. */
export type Placement = 'catalog' | 'denied' | 'direct' | 'control';

/**
 * Catalog entries carry a declaration; direct-only tools stay model-visible; a tool that is neither
 * denied, direct-only nor cataloged is a Tool Search control, hidden from the model and the catalog.
 */
export function placement(tool: Pick<CatalogTool, 'deniedBy' | 'directOnly' | 'declaration'>): Placement {
  if (tool.deniedBy !== undefined) return 'denied';
  if (tool.directOnly) return 'direct';
  return tool.declaration ? 'catalog' : 'control';
}

function matches(tool: CatalogTool, query: string): boolean {
  if (!query) return true;
  const q = query.toLowerCase();
  return [tool.callableName, tool.name, tool.description, tool.owner ?? '', tool.mcpPath ?? ''].some((s) => s.toLowerCase().includes(q));
}

function Flag({ children, title }: { children: string; title: string }) {
  return (
    <span title={title} className="rounded bg-neutral-800 px-1 font-mono text-[10px] text-neutral-400">
      {children}
    </span>
  );
}

/** A row's identity: one tool can sit in a source group, the direct-only list or the controls, never two at once. */
function rowKey(tool: CatalogTool): string {
  return `${tool.source}:${tool.owner ?? ''}:${tool.name}`;
}

function ToolRow({ tool, roving }: { tool: CatalogTool; roving: Roving }) {
  const [open, setOpen] = useState(false);
  const denied = tool.deniedBy !== undefined;
  const shown = tool.mcpPath ?? tool.callableName;
  return (
    <li
      data-testid="catalog-tool"
      data-callable={tool.callableName}
      data-name={tool.name}
      data-denied={denied ? 'true' : 'false'}
      className={`rounded border border-neutral-800 px-2 py-1 ${denied ? 'opacity-45' : 'bg-neutral-950/40'}`}
    >
      <button
        type="button"
        className="flex w-full items-baseline gap-1.5 text-left"
        aria-expanded={open}
        data-roving-key={rowKey(tool)}
        tabIndex={roving.tabIndexOf(rowKey(tool))}
        onFocus={() => roving.onItemFocus(rowKey(tool))}
        onClick={() => setOpen(!open)}
      >
        <span className="text-neutral-500">{open ? '▾' : '▸'}</span>
        <span className={`font-mono text-xs ${denied ? 'text-neutral-400 line-through' : 'text-sky-300'}`}>{shown}</span>
        {tool.name !== tool.callableName && !tool.mcpPath ? (
          <span className="font-mono text-[11px] text-neutral-500" title="exact tool name (projected to the callable name)">
            ← {tool.name}
          </span>
        ) : null}
        <span className="ml-auto flex gap-1">
          {tool.executionMode === 'sequential' ? <Flag title="sequential: serializes with every other call">seq</Flag> : null}
          {tool.networkContent ? <Flag title="output is network content, wrapped as untrusted">net</Flag> : null}
          {tool.approval ? <Flag title="each call waits for an operator's approval">approval</Flag> : null}
          {tool.directOnly ? <Flag title="direct-only: stays model-visible, not in the catalog">direct</Flag> : null}
        </span>
      </button>
      {denied ? <div className="pl-4 text-[11px] text-rose-300/80">denied by {tool.deniedBy}</div> : null}
      {open ? (
        <div className="mt-1 space-y-1 pl-4">
          <p className="text-[11px] text-neutral-400">{tool.description}</p>
          <pre data-testid="catalog-declaration" className="overflow-auto whitespace-pre-wrap rounded bg-neutral-950 p-1.5 font-mono text-[11px] text-neutral-300">
            {tool.declaration}
          </pre>
        </div>
      ) : null}
    </li>
  );
}

function ClientToolsEditor(props: { tools: ClientToolSpec[]; onApply: (tools: ClientToolSpec[]) => void }) {
  const [text, setText] = useState(() => JSON.stringify(props.tools, null, 2));
  const [error, setError] = useState<string>();
  return (
    <div data-testid="client-tools-editor" className="space-y-1.5 rounded border border-neutral-800 bg-neutral-950/60 p-2">
      <p className="text-[11px] text-neutral-400">
        Client tools of this turn: JSON array of <code className="font-mono">{'{ name, description, inputSchema, outputSchema? }'}</code>. A cell that calls one
        waits until you answer it on the waiting-runs board.
      </p>
      <JsonEditor label="client tools of this turn (JSON array)" testId="client-tools-json" heightClassName="h-40" value={text} onChange={setText} />
      {error ? <ErrorNote title="Client tools not applied">{error}</ErrorNote> : null}
      <Button
        kind="primary"
        testId="client-tools-apply"
        onClick={() => {
          const parsed = parseClientTools(text);
          if ('error' in parsed) setError(parsed.error);
          else {
            setError(undefined);
            props.onApply(parsed.tools);
          }
        }}
      >
        Apply
      </Button>
    </div>
  );
}

// memo: the page re-renders on every live event; this panel only when its own props change (issue 14)
export const CatalogPanel = memo(function CatalogPanel(props: {
  catalog?: CatalogData;
  error?: string;
  loading: boolean;
  clientTools: ClientToolSpec[];
  onClientToolsChange: (tools: ClientToolSpec[]) => void;
}) {
  const [query, setQuery] = useState('');
  const [editingClientTools, setEditingClientTools] = useState(false);
  const tools = useMemo(() => (props.catalog?.tools ?? []).filter((t) => matches(t, query)), [props.catalog, query]);
  const catalog = props.catalog;
  const cataloged = catalog?.tools.filter((t) => placement(t) === 'catalog').length;
  const direct = tools.filter((t) => placement(t) === 'direct');
  const controls = tools.filter((t) => placement(t) === 'control');
  const groups = SOURCES.map(({ source, label }) => ({
    source,
    label,
    tools: tools.filter((t) => t.source === source && (placement(t) === 'catalog' || placement(t) === 'denied')),
    // A filter is a search for tools: a server line under it would read as a match ("MCP servers 0").
    servers: source === 'mcp' && catalog && !query ? catalog.mcpServers : [],
  }));
  // Every row in display order: the list is one tab stop and arrows walk it (29 stops to cross it otherwise).
  const rowOrder = [...groups.flatMap((g) => g.tools), ...direct, ...controls].map(rowKey);
  const roving = useRovingFocus(rowOrder, 'vertical');
  return (
    <Panel
      title={`Hidden catalog${cataloged !== undefined ? ` (${cataloged})` : ''}`}
      testId="catalog-panel"
      actions={
        <Button kind="ghost" testId="client-tools-toggle" onClick={() => setEditingClientTools(!editingClientTools)}>
          client tools…
        </Button>
      }
    >
      <div className="space-y-2">
        {editingClientTools ? (
          <ClientToolsEditor
            tools={props.clientTools}
            onApply={(t) => {
              props.onClientToolsChange(t);
              setEditingClientTools(false);
            }}
          />
        ) : null}
        <input
          type="search"
          aria-label="Filter the catalog by name or description"
          data-testid="catalog-search"
          className="w-full rounded border border-neutral-800 bg-neutral-950 px-2 py-1 text-xs placeholder:text-neutral-600"
          placeholder="Filter by name or description"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
        {props.error ? <ErrorNote title="Cannot load the catalog">{props.error}</ErrorNote> : null}
        {!catalog && !props.error ? <Empty>{props.loading ? 'Loading…' : 'No catalog yet.'}</Empty> : null}
        {catalog?.pluginErrors.map((p) => (
          <ErrorNote key={p.plugin} title={`Plugin ${p.plugin} failed to load (skipped)`}>
            {p.error}
          </ErrorNote>
        ))}
        {catalog && query && tools.length === 0 ? (
          <Empty testId="catalog-no-match">No tools match “{query}”. Clear the filter to see the whole catalog.</Empty>
        ) : null}
        <div role="group" aria-label="Catalog tools (arrow keys move between them)" onKeyDown={roving.onKeyDown} className="space-y-2">
          {catalog
            ? groups.map(({ source, label, tools: group, servers }) => {
                if (group.length === 0 && servers.length === 0) return null;
                return (
                  <div key={source} data-testid={`catalog-source-${source}`}>
                    <h3 className="mb-1 text-[11px] font-semibold text-neutral-400">
                      {label} <span className="font-normal text-neutral-600">{group.length}</span>
                    </h3>
                    {servers.map((server) => (
                      <div key={server.name} data-testid="mcp-server" data-state={server.state} className="mb-1 flex items-center gap-1.5 text-[11px]">
                        <span className="font-mono text-neutral-300">MCP.{server.callableName}</span>
                        <StatusBadge status={server.state} />
                        <span className="text-neutral-500">
                          {server.transport}, {server.toolCount} tools
                        </span>
                        {server.error ? <span className="truncate text-rose-300">{server.error}</span> : null}
                      </div>
                    ))}
                    <ul className="space-y-1">
                      {group.map((tool) => (
                        <ToolRow key={rowKey(tool)} tool={tool} roving={roving} />
                      ))}
                    </ul>
                  </div>
                );
              })
            : null}
          {direct.length > 0 ? (
            <div data-testid="catalog-direct-only">
              <h3 className="mb-1 text-[11px] font-semibold text-neutral-400">
                Direct-only <span className="font-normal text-neutral-600">model-visible, not in the catalog</span>
              </h3>
              <ul className="space-y-1">
                {direct.map((tool) => (
                  <ToolRow key={rowKey(tool)} tool={tool} roving={roving} />
                ))}
              </ul>
            </div>
          ) : null}
          {controls.length > 0 ? (
            <div data-testid="catalog-controls" className="opacity-60">
              <h3 className="mb-1 text-[11px] font-semibold text-neutral-400">
                Tool Search controls <span className="font-normal text-neutral-600">hidden from the model and the catalog in code mode</span>
              </h3>
              <ul className="space-y-1">
                {controls.map((tool) => (
                  <ToolRow key={rowKey(tool)} tool={tool} roving={roving} />
                ))}
              </ul>
            </div>
          ) : null}
        </div>
      </div>
    </Panel>
  );
});
