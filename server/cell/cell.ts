// The cell body an executor runs inside an async function: top-level await and return, REPL-style last-expression value.
import type { AnyNode, Program } from 'acorn';
import { CodeModeError } from '../errors.ts';
import { checkCellSource } from './checks.ts';
import { isFunctionNode, parseScript, walk } from './ast.ts';
import type { CellLanguage } from './exec-input.ts';

export interface CellInput {
  /** JavaScript (a TypeScript cell after transform). */
  code: string;
  language: CellLanguage;
  /** The parsed and checked program of `code`, when the caller already has it. */
  program?: Program;
}

export interface PreparedCell {
  /** JavaScript for the body of an `async function`: its return value is the cell's value. */
  body: string;
  language: CellLanguage;
  /**
   * Lines `body` adds before the user's line 1. Always 0 today (the rewrite only edits within lines); an executor
   * subtracts this plus its own wrapper lines from guest stack line numbers.
   */
  lineOffset: number;
}

// A `return` that leaves the cell itself, wherever it sits in top-level blocks, loops or try.
function hasTopLevelReturn(program: Program): boolean {
  let found = false;
  walk(program, (node) => {
    if (found || isFunctionNode(node) || node.type === 'StaticBlock' || node.type === 'PropertyDefinition') return 'skip';
    if (node.type === 'ReturnStatement') found = true;
    return undefined;
  });
  return found;
}

function lastStatement(program: Program): AnyNode | undefined {
  for (let i = program.body.length - 1; i >= 0; i--) {
    const statement = program.body[i];
    if (statement !== undefined && statement.type !== 'EmptyStatement') return statement;
  }
  return undefined;
}

// The executor wraps `body` in a function; a body that could close that function early would run code outside it.
function assertSelfContained(body: string): void {
  const wrapped = `(async function () {\n${body}\n})`;
  const program = parseScript(wrapped);
  const [statement] = program.body;
  const fn = statement?.type === 'ExpressionStatement' ? statement.expression : undefined;
  if (program.body.length !== 1 || fn?.type !== 'FunctionExpression' || fn.end !== wrapped.length - 1) {
    throw new CodeModeError('internal_error', 'the prepared cell body does not stay inside its function wrapper; report this cell as a bug.');
  }
}

/** Turn checked cell JavaScript into a function body; line numbers stay those of the user's source. */
export function prepareCell(input: CellInput): PreparedCell {
  const program = input.program ?? checkCellSource(input.code);
  let body = input.code;
  const last = lastStatement(program);
  if (last?.type === 'ExpressionStatement' && !hasTopLevelReturn(program)) {
    const expression = input.code.slice(last.expression.start, last.expression.end);
    // Same line, same start column for everything before; parentheses keep a multi-line expression one return.
    body = `${input.code.slice(0, last.start)}return (${expression});${input.code.slice(last.end)}`;
  }
  assertSelfContained(body);
  return { body, language: input.language, lineOffset: 0 };
}
