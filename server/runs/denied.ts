// A cell that calls a tool its agent's policy denied: the uncaught error names the rule, as the editor does.
//
// Spec 03: "denied tools have no global or catalog handle", so a cell that calls one fails as the engine says:
// `ReferenceError: exec is not defined` for a bare name, a TypeError for an `MCP.<server>.<tool>` member. Nothing
// in the guest may know the tool (a global that throws would be a handle), so the host adds the reason to the
// failed result the model reads, from the turn's policy: the same rule the editor's marker shows.

/** Words the engines use for a name that is not there: V8 and quickjs-ng `x is not defined`, Bellard QuickJS `'x' is not defined`. */
const NOT_DEFINED = /^ReferenceError: '?([A-Za-z_$][\w$]*)'? is not defined/;

/**
 * `error` (the failed result's text, with its `(line N)`) explained when it is a call to a denied tool: a
 * ReferenceError naming one, or a TypeError on the cell line that calls a denied MCP member. `code` is the cell's
 * source (TypeScript keeps its line numbers through the transform). Returns `error` unchanged otherwise.
 */
export function explainDeniedTool(error: string, code: string, denied: ReadonlyMap<string, string> | undefined): string {
  if (!denied || denied.size === 0) return error;
  const name = NOT_DEFINED.exec(error)?.[1] ?? (error.startsWith('TypeError') ? deniedMcpOnLine(error, code, denied) : undefined);
  const rule = name === undefined ? undefined : denied.get(name);
  if (name === undefined || rule === undefined) return error;
  return (
    `${error}. ${name} is denied for this agent by policy rule ${rule}: a denied tool has no global or handle in a cell. ` +
    'Use another tool (catalog.search lists the allowed ones), or ask the operator to allow it.'
  );
}

/** The denied MCP member (`MCP.demo.slow`) called on the line the TypeError names, if one is. */
function deniedMcpOnLine(error: string, code: string, denied: ReadonlyMap<string, string>): string | undefined {
  const lineNo = Number(/\(line (\d+)\)$/.exec(error)?.[1]);
  const line = Number.isInteger(lineNo) && lineNo > 0 ? code.split('\n')[lineNo - 1] : undefined;
  if (line === undefined) return undefined;
  for (const name of denied.keys()) {
    if (!name.startsWith('MCP.')) continue;
    const at = line.indexOf(name);
    // the member itself, called: not a longer name that starts with it
    if (at >= 0 && /^\s*\(/.test(line.slice(at + name.length))) return name;
  }
  return undefined;
}
