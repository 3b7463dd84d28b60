// The editor overlay of inferred output types: for catalog tools that declare no output, declarations whose
// return type is what this turn's results looked like, marked "inferred". An editor aid only: never in the
// model's surface or quick index, and in the server typecheck only when the caller opts in.
//
// The overlay adds signatures beside the declared ones rather than editing them: an MCP tool gets a member in
// a second declaration of its server interface (TypeScript orders a later interface declaration's members
// first, so the inferred signature is the one a call resolves to); a plain tool gets an overload that the
// editor loads before the catalog's declarations. Inputs keep the declared parameter type, so a wrong
// argument is still an error.
import { mcpInterfaceName } from './build.ts';
import { renderShape, type Shape } from './infer-type.ts';
import { docComment, signatureParts, TypeAliasRegistry } from './schema-to-ts.ts';
import type { Catalog, CatalogEntry } from './types.ts';

/** What a turn observed of one tool's results. */
export interface InferredOutput {
  shape: Shape;
  /** Results merged into the shape. */
  samples: number;
}

/** One inferred type as the API lists it. */
export interface InferredTypeView {
  /** The guest-visible name (`MCP.demo.echo`, `weather_lookup`). */
  tool: string;
  samples: number;
  /** The inferred TypeScript type of the tool's result. */
  type: string;
}

/**
 * Declarations around the catalog's: `leading` before them (plain tools' overloads: among function overloads the
 * first declared wins), `trailing` after them (MCP interface members: among merged interface declarations the
 * later one's members come first). Both empty when nothing was inferred.
 */
export interface InferredOverlay {
  tools: InferredTypeView[];
  leading: string;
  trailing: string;
}

/** The catalog's ambient declarations with the overlay around them (the opt-in server typecheck reads this). */
export function withInferred(ambientDeclarations: string, overlay: InferredOverlay): string {
  return `${overlay.leading}${ambientDeclarations}${overlay.trailing}`;
}

/** The catalog entry a guest label names (`MCP.<server>.<tool>` or a callable name), if any. */
export function entryForLabel(catalog: Catalog, label: string): CatalogEntry | undefined {
  if (label.startsWith('MCP.')) {
    const [, server = '', tool = ''] = label.split('.');
    return catalog.mcp.get(server)?.get(tool);
  }
  return catalog.byCallable.get(label);
}

/** Whether inference applies to an entry: it declares no output (declared types always win). */
export function wantsInference(entry: CatalogEntry): boolean {
  return entry.outputSchema === undefined;
}

/** The overlay for the tools of `catalog` with observations in `inferred` (keyed by guest label). */
export function inferredOverlay(catalog: Catalog, inferred: ReadonlyMap<string, InferredOutput>): InferredOverlay {
  const tools: InferredTypeView[] = [];
  const leading: string[] = [];
  const trailing: string[] = [];
  for (const [label, observed] of inferred) {
    const entry = entryForLabel(catalog, label);
    if (!entry || !wantsInference(entry)) continue;
    const type = renderShape(observed.shape);
    tools.push({ tool: label, samples: observed.samples, type });
    const note = `Output type inferred from ${observed.samples} ${observed.samples === 1 ? 'result' : 'results'} observed in this turn; the tool declares none (an editor aid, never shown to the model).`;
    const doc = `${entry.description}\n\n@inferred ${note}`;
    if (entry.mcp) {
      const iface = mcpInterfaceName(entry.mcp.serverCallable);
      const alias = `Inferred__${entry.mcp.serverCallable}__${entry.callableName}`;
      // the same alias prefix as the catalog's own member, so recursive input types resolve to its aliases
      const { param } = signatureParts(entry.inputSchema, undefined, { indent: '  ', aliases: new TypeAliasRegistry(`${iface}__${entry.callableName}__`) });
      trailing.push(`${docComment(`(inferred) ${note}`, '')}type ${alias} = ${type};`);
      trailing.push(`interface ${iface} {\n  ${docComment(doc, '  ')}${entry.callableName}(${param}): Promise<McpCallToolResult & ${alias}>;\n}`);
    } else {
      const alias = `Inferred__${entry.callableName}`;
      const { param } = signatureParts(entry.inputSchema, undefined, { aliases: new TypeAliasRegistry(`${entry.callableName}__`) });
      leading.push(`${docComment(`(inferred) ${note}`, '')}type ${alias} = ${type};`);
      leading.push(`${docComment(doc, '')}declare function ${entry.callableName}(${param}): Promise<${alias}>;`);
    }
  }
  const text = (parts: string[]) => (parts.length === 0 ? '' : `// Inferred output types (this turn's results; not declared by the tools).\n${parts.join('\n\n')}\n\n`);
  return { tools, leading: text(leading), trailing: text(trailing) };
}
