// What one guest request is, for the trajectory, the board and error messages: its guest-visible
// label, its kind and the part of its input worth showing. The one switch over a request's `op`
// outside the dispatcher's own work.
import type { Catalog, CatalogEntry } from '../catalog/types.ts';
import type { BridgeRequest } from './protocol.ts';

/** What kind of thing a nested call is (a trajectory row's kind, and the counter it bumps). */
export type NestedCallKind = 'tool' | 'mcp' | 'client' | 'search' | 'describe' | 'timer' | 'store' | 'results' | 'yield';

export interface RequestDescription {
  /** Guest-visible name of the request's target (`sleep`, `MCP.demo.echo`, `catalog.search`). */
  label: string;
  kind: NestedCallKind;
  /** The request's input as the board shows it (a tool call's input; the parameters of a bridge op). */
  input: unknown;
}

/** The catalog entry a call names; undefined when it names nothing of this run's projection. */
export function resolveCallTarget(catalog: Catalog, req: Extract<BridgeRequest, { op: 'call' }>): CatalogEntry | undefined {
  if (req.mcp) return catalog.mcp.get(req.mcp[0])?.get(req.mcp[1]);
  return req.tool === undefined ? undefined : catalog.byCallable.get(req.tool);
}

/** Describe one checked request; `catalog` is the run's projection (a call to a tool without `execute` is a client call). */
export function describeRequest(req: BridgeRequest, catalog: Catalog): RequestDescription {
  switch (req.op) {
    case 'call': {
      if (req.mcp) return { label: `MCP.${req.mcp[0]}.${req.mcp[1]}`, kind: 'mcp', input: req.input };
      const entry = resolveCallTarget(catalog, req);
      return { label: req.tool ?? '?', kind: entry && !entry.tool.execute ? 'client' : 'tool', input: req.input };
    }
    case 'search':
      return { label: 'catalog.search', kind: 'search', input: { query: req.query, limit: req.limit } };
    case 'all':
      return { label: 'catalog.all', kind: 'search', input: {} };
    case 'describe':
      return {
        label: req.mcpServer !== undefined ? `MCP.${req.mcpServer}.$api` : `${req.tool ?? '?'}.describe`,
        kind: 'describe',
        input: { tool: req.tool ?? req.mcpServer },
      };
    case 'timer':
      return { label: 'setTimeout', kind: 'timer', input: { ms: req.ms } };
    case 'store':
      return { label: req.action === 'set' ? 'store' : 'load', kind: 'store', input: { key: req.key } };
    case 'results':
      return { label: `results.${req.action}`, kind: 'results', input: { action: req.action, ref: req.ref } };
    case 'yield':
      return { label: 'yield_control', kind: 'yield', input: {} };
  }
}
