// The editor's cell check: the server typecheck's world (compiler options, wrapper, positions from
// shared/cell-types.mjs, served with the declarations) applied to Monaco's TypeScript worker, plus the
// agent's policy: a call to a tool policy denied is flagged with the rule that denied it.
//
// The visible model holds the user's cell; a hidden model holds the cell inside the wrapper the server checks,
// and its diagnostics, moved back onto the user's lines, are the editor's markers. Pure functions here, so the
// test that holds the editor to the server (cellCheck.test.ts) runs exactly this over Monaco's own worker.
import { cellDiagnostics, wrapCell } from '../../shared/cell-types.mjs';
import type { CellCompilerOptions, CellTypeWorld, RawDiagnostic } from '../../shared/cell-types.mjs';
import type { CellLanguage } from './share.ts';
import type { CellMarker } from './types.ts';

export type { CellTypeWorld, RawDiagnostic };

/** A tool the agent's policy denied: what a cell would call it, and the rule (`agents.list[research].tools.deny: "exec"`). */
export interface DeniedTool {
  callableName: string;
  rule: string;
  /** `MCP.<server>.<tool>` for an MCP tool. */
  mcpPath?: string;
}

/** The denied tools of a catalog view (its rows with `deniedBy`), as the editor flags them. */
export function deniedToolsOf(tools: ReadonlyArray<{ callableName: string; deniedBy?: string; mcpPath?: string }>): DeniedTool[] {
  return tools.flatMap((t) => (t.deniedBy !== undefined ? [{ callableName: t.callableName, rule: t.deniedBy, ...(t.mcpPath !== undefined ? { mcpPath: t.mcpPath } : {}) }] : []));
}

/** The hidden model the wrapped cell lives in (one per language: the JavaScript and TypeScript workers are apart). */
export function checkModelPath(language: CellLanguage): string {
  return language === 'typescript' ? 'file:///codemode/cell.check.ts' : 'file:///codemode/cell.check.js';
}

/** The compiler options the served world gives the cell's language. */
export function editorCompilerOptions(world: CellTypeWorld, language: CellLanguage): CellCompilerOptions {
  return world.compilerOptions[language];
}

/** The hidden model's text for `source`. */
export function checkText(world: CellTypeWorld, source: string): string {
  return wrapCell(source, world.prefix, world.suffix);
}

// Cannot find name 'x' (2304), ... Did you mean (2552); property 'x' does not exist (2339), ... Did you mean (2551).
const MISSING_NAME = new Set([2304, 2552]);
const MISSING_PROPERTY = new Set([2339, 2551]);

/** The denied tool a missing-name diagnostic is a call to, if any. */
function deniedCall(d: RawDiagnostic, source: string, prefixLength: number, denied: readonly DeniedTool[]): DeniedTool | undefined {
  if (d.start === undefined || d.length === undefined) return undefined;
  const start = d.start - prefixLength;
  const name = source.slice(start, start + d.length);
  if (MISSING_NAME.has(d.code)) return denied.find((t) => t.mcpPath === undefined && t.callableName === name);
  if (!MISSING_PROPERTY.has(d.code)) return undefined;
  const owner = /MCP\s*\.\s*([\p{ID_Start}$_][\p{ID_Continue}$]*)\s*\.\s*$/u.exec(source.slice(Math.max(0, start - 200), start));
  if (!owner) return undefined;
  return denied.find((t) => t.mcpPath === `MCP.${owner[1]}.${name}`);
}

/**
 * The editor's markers for the hidden model's diagnostics (syntactic then semantic, as the server lists them):
 * the same lines, columns, messages and codes the server typecheck reports, and a call to a denied tool says
 * which rule denied it.
 */
export function cellMarkers(found: readonly RawDiagnostic[], source: string, world: CellTypeWorld, denied: readonly DeniedTool[] = []): CellMarker[] {
  const positioned = cellDiagnostics(found, source, world.prefix);
  return positioned.map((d, i) => {
    const marker: CellMarker = {
      line: d.line,
      column: d.column,
      endLine: d.endLine,
      endColumn: d.endColumn,
      severity: 'error',
      message: d.message,
      code: String(d.code),
    };
    const raw = found[i];
    const tool = raw ? deniedCall(raw, source, world.prefix.length, denied) : undefined;
    if (tool) {
      const name = tool.mcpPath ?? tool.callableName;
      marker.message = `${name} is denied for this agent by policy rule ${tool.rule}; the Gateway refuses the call. (${d.message})`;
      marker.policyRule = tool.rule;
    }
    return marker;
  });
}
