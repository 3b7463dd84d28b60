// Acorn plumbing shared by the source checks and the cell rewrite: parse options, a generic walk, syntax-error shape, static keys.
import { parse, type AnyNode, type Options, type Program } from 'acorn';

/** How a cell parses: a script (no modules) whose body runs inside an async function, so `await` and `return` are legal at top level. */
export const CELL_PARSE_OPTIONS: Options = {
  ecmaVersion: 'latest',
  sourceType: 'script',
  allowAwaitOutsideFunction: true,
  allowReturnOutsideFunction: true,
  locations: true,
};

export function parseScript(source: string): Program {
  return parse(source, CELL_PARSE_OPTIONS);
}

/** Acorn's SyntaxError carries `pos` and `loc`; anything else is not a parse failure. */
export interface AcornSyntaxError extends SyntaxError {
  pos: number;
  loc: { line: number; column: number };
}

export function isAcornSyntaxError(error: unknown): error is AcornSyntaxError {
  if (!(error instanceof SyntaxError)) return false;
  const { pos, loc } = error as SyntaxError & { pos?: unknown; loc?: unknown };
  return typeof pos === 'number' && typeof loc === 'object' && loc !== null;
}

/** Acorn appends " (line:col)" to its messages; callers print their own position. */
export function parserMessage(error: AcornSyntaxError): string {
  return error.message.replace(/\s*\(\d+:\d+\)$/, '');
}

export function isNode(value: unknown): value is AnyNode {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { type?: unknown }).type === 'string' &&
    typeof (value as { start?: unknown }).start === 'number'
  );
}

/** Where a child sits in its parent: enough to tell a reference from a property key or a label. */
export interface NodeSlot {
  parent: AnyNode | undefined;
  key: string;
}

export type Visitor = (node: AnyNode, slot: NodeSlot) => void | 'skip';

/** Depth-first walk over every child node; a visitor returning "skip" does not descend into that node. */
export function walk(root: AnyNode, visit: Visitor): void {
  const stack: Array<{ node: AnyNode; slot: NodeSlot }> = [{ node: root, slot: { parent: undefined, key: '' } }];
  while (stack.length > 0) {
    const entry = stack.pop();
    if (entry === undefined) break;
    if (visit(entry.node, entry.slot) === 'skip') continue;
    const children: Array<{ node: AnyNode; slot: NodeSlot }> = [];
    for (const [key, value] of Object.entries(entry.node)) {
      if (key === 'loc') continue;
      if (Array.isArray(value)) {
        for (const item of value) if (isNode(item)) children.push({ node: item, slot: { parent: entry.node, key } });
      } else if (isNode(value)) {
        children.push({ node: value, slot: { parent: entry.node, key } });
      }
    }
    // Reverse so the walk visits children in source order.
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i];
      if (child !== undefined) stack.push(child);
    }
  }
}

export function isFunctionNode(node: AnyNode): boolean {
  return node.type === 'FunctionDeclaration' || node.type === 'FunctionExpression' || node.type === 'ArrowFunctionExpression';
}

/** The string a property key or computed member evaluates to when it is knowable without running code. */
export function staticString(node: AnyNode): string | undefined {
  if (node.type === 'Literal') return typeof node.value === 'string' ? node.value : undefined;
  if (node.type === 'TemplateLiteral') {
    let text = '';
    for (const [index, quasi] of node.quasis.entries()) {
      text += quasi.value.cooked ?? '';
      const expression = node.expressions[index];
      if (expression === undefined) continue;
      const part = staticString(expression);
      if (part === undefined) return undefined;
      text += part;
    }
    return text;
  }
  if (node.type === 'BinaryExpression' && node.operator === '+' && node.left.type !== 'PrivateIdentifier') {
    const left = staticString(node.left);
    const right = staticString(node.right);
    return left !== undefined && right !== undefined ? left + right : undefined;
  }
  return undefined;
}

/** The name a member access or property reads: `a.b`, `a["b"]`, `a["b" + "c"]`. */
export function memberKey(node: { property: AnyNode; computed: boolean }): string | undefined {
  if (!node.computed) return node.property.type === 'Identifier' ? node.property.name : undefined;
  return staticString(node.property);
}
