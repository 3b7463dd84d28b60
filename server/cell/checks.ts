// Rejected source patterns (imports, require, module loaders) and shell-shaped input, found on the parsed AST.
//
// The guest has no module system at all (QuickJS has no loader; the node:vm context gets no require), so these
// checks are guidance, not the boundary: they turn a cell that could only fail at runtime into an early
// invalid_input that says what to use instead. What is caught, statically:
//   - `import` / `export` declarations and `import.meta` (acorn rejects them in a script; we explain why);
//   - dynamic `import(...)` in any form (`import.source(...)` too);
//   - any identifier `require`, `createRequire` or `importScripts` (call, reference or binding);
//   - `module.require`, `globalThis.require`, `this["req" + "uire"]` and similar on the global objects, where the
//     key is a literal, a template whose substitutions are such strings, or a `+` concatenation of those;
//   - `createRequire` as a property of anything (`Module.createRequire`);
//   - `process.binding`, `process._linkedBinding`, `process.dlopen`, `process.mainModule`, `process.getBuiltinModule`
//     (also through `globalThis.process`);
//   - the same patterns inside a literal string handed to `eval(...)` or `Function(...)`.
// Not caught: keys computed at runtime (`globalThis[name]`); they meet a guest that has no loader.
import type { AnyNode, Program } from 'acorn';
import { InvalidInputError } from '../errors.ts';
import { isAcornSyntaxError, memberKey, parserMessage, parseScript, staticString, walk, type AcornSyntaxError, type NodeSlot } from './ast.ts';

const TOOLS_INSTEAD =
  'Tools are async globals in the cell (e.g. `await read({ path: "notes.txt" })`); find them with `catalog.search("...")` and read their declarations with `API.read("tools/<name>.d.ts")`.';

const FORBIDDEN_IDENTIFIERS = new Set(['require', 'createRequire', 'importScripts']);
const GLOBAL_OBJECTS = new Set(['globalThis', 'global', 'window', 'self', 'module']);
const GLOBAL_LOADER_KEYS = new Set(['require', 'importScripts']);
const PROCESS_LOADER_KEYS = new Set(['binding', '_linkedBinding', 'dlopen', 'mainModule', 'getBuiltinModule']);
const EVAL_CALLEES = new Set(['eval', 'Function']);
/** Nested eval strings followed by the checks: enough for `eval("eval('...')")` tricks, bounded so hostile input cannot make the check itself expensive (the guest has no loader either way). */
export const MAX_EVAL_DEPTH = 3;

// Commands a model types when it thinks exec is a shell. Only consulted when the source is not JavaScript
// (or is a lone expression made only of these words and operators), so JS names like `date` stay usable.
const SHELL_COMMANDS = new Set([
  'ls', 'cd', 'cat', 'grep', 'egrep', 'rg', 'find', 'echo', 'pwd', 'mkdir', 'rmdir', 'rm', 'cp', 'mv', 'touch',
  'chmod', 'chown', 'ln', 'head', 'tail', 'less', 'more', 'wc', 'sort', 'uniq', 'sed', 'awk', 'cut', 'tr', 'xargs',
  'tee', 'diff', 'curl', 'wget', 'ssh', 'scp', 'git', 'npm', 'npx', 'pnpm', 'yarn', 'node', 'deno', 'bun', 'python',
  'python3', 'pip', 'pip3', 'make', 'cargo', 'go', 'docker', 'kubectl', 'sudo', 'apt', 'apt-get', 'brew', 'tar',
  'zip', 'unzip', 'ps', 'kill', 'df', 'du', 'env', 'which', 'whoami', 'uname', 'date', 'bash', 'sh', 'zsh', 'tsc',
  'ls-files', 'tree', 'stat', 'file', 'open', 'man', 'history', 'clear',
]);
const SHELL_OPERATORS = new Set(['|', '||', '&&', ';', '>', '>>', '<', '2>', '2>&1', '&']);

function at(line: number, column: number): string {
  return `line ${line}:${column}`;
}

function nodeAt(node: AnyNode): string {
  return node.loc ? at(node.loc.start.line, node.loc.start.column + 1) : `offset ${node.start}`;
}

function quoteArg(word: string): string {
  return `'${word.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function firstCommandLine(source: string): string | undefined {
  for (const raw of source.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    return line.replace(/^\$\s+/, '');
  }
  return undefined;
}

/** The guidance error for shell-shaped input; the example replays the first command as a shell tool call. */
export function shellInputError(source: string): InvalidInputError {
  const words = (firstCommandLine(source) ?? 'ls -la').split(/\s+/);
  const simple: string[] = [];
  for (const word of words) {
    if (SHELL_OPERATORS.has(word)) break;
    simple.push(word);
  }
  const [command = 'ls', ...args] = simple[0] === 'sudo' ? simple.slice(1) : simple;
  const example = `await exec({ command: ${quoteArg(command)}, args: [${args.slice(0, 6).map(quoteArg).join(', ')}] })`;
  return new InvalidInputError(
    `exec runs JavaScript/TypeScript, not a shell: call a tool, e.g. \`${example}\` (the shell tool is the exec() global when policy allows it). ${TOOLS_INSTEAD}`,
  );
}

/** Text test for source that did not parse: does its first line read as a shell command line? */
export function looksLikeShellCommand(source: string): boolean {
  const line = firstCommandLine(source);
  if (line === undefined) return false;
  const words = line.split(/\s+/);
  const first = words[0] === 'sudo' ? words[1] : words[0];
  const second = words[0] === 'sudo' ? words[2] : words[1];
  if (first === undefined) return false;
  // `./build.sh`, `/usr/bin/env node`: an executable path is never a JavaScript statement start.
  if (/^\.{0,2}\/[\w./-]+$/.test(first)) return true;
  if (!SHELL_COMMANDS.has(first)) return false;
  // `sort x` is a command; `date = new Date(` or `find(...)` is broken JavaScript.
  return second === undefined || SHELL_OPERATORS.has(second) || /^(-{1,2}[\w-]*|[\w.~/*@:%+-]+|'[^']*'|"[^"]*")$/.test(second);
}

// `ls -la`, `ls -la | head`, `pwd`: parses as JavaScript but is only shell words joined by operators.
function shellWordsExpression(node: AnyNode): boolean {
  switch (node.type) {
    case 'Identifier':
      return true;
    case 'Literal':
      return typeof node.value === 'number';
    case 'UnaryExpression':
      return node.operator === '-' && shellWordsExpression(node.argument);
    case 'BinaryExpression':
      return node.left.type !== 'PrivateIdentifier' && shellWordsExpression(node.left) && shellWordsExpression(node.right);
    case 'LogicalExpression':
      return shellWordsExpression(node.left) && shellWordsExpression(node.right);
    case 'MemberExpression':
      return !node.computed && node.object.type !== 'Super' && shellWordsExpression(node.object);
    default:
      return false;
  }
}

function leftmostIdentifier(node: AnyNode): string | undefined {
  switch (node.type) {
    case 'Identifier':
      return node.name;
    case 'BinaryExpression':
    case 'LogicalExpression':
      return node.left.type === 'PrivateIdentifier' ? undefined : leftmostIdentifier(node.left);
    case 'MemberExpression':
      return node.object.type === 'Super' ? undefined : leftmostIdentifier(node.object);
    default:
      return undefined;
  }
}

/** A program that parsed but is obviously a shell command line. */
export function isShellShapedProgram(program: Program): boolean {
  if (program.body.length !== 1) return false;
  const [statement] = program.body;
  if (statement?.type !== 'ExpressionStatement') return false;
  const first = leftmostIdentifier(statement.expression);
  return first !== undefined && SHELL_COMMANDS.has(first) && shellWordsExpression(statement.expression);
}

function syntaxFailure(source: string, error: AcornSyntaxError): InvalidInputError {
  const where = at(error.loc.line, error.loc.column + 1);
  const message = parserMessage(error);
  if (message.startsWith("'import' and 'export' may appear only")) {
    if (source.startsWith('export', error.pos)) {
      return new InvalidInputError(`exec: \`export\` at ${where} is not allowed: a cell is not a module. Return the value instead (\`return result;\`).`);
    }
    return new InvalidInputError(`exec: \`import\` declarations are not allowed (${where}): a cell has no modules. ${TOOLS_INSTEAD}`);
  }
  if (message.includes("'import.meta'")) {
    return new InvalidInputError(`exec: \`import.meta\` is not allowed (${where}): a cell has no modules. ${TOOLS_INSTEAD}`);
  }
  if (looksLikeShellCommand(source)) return shellInputError(source);
  return new InvalidInputError(`exec: syntax error at ${where}: ${message}. Fix the cell source and call exec again.`);
}

/** Parse a JavaScript cell; syntax errors and shell-shaped input become InvalidInputError with guidance. */
export function parseCell(source: string): Program {
  let program: Program;
  try {
    program = parseScript(source);
  } catch (error) {
    if (isAcornSyntaxError(error)) throw syntaxFailure(source, error);
    throw error;
  }
  if (isShellShapedProgram(program)) throw shellInputError(source);
  return program;
}

// An identifier in these slots is a name, not a reference: `a.require`, `{ require: 1 }`, `require:` labels.
function isNameSlot(slot: NodeSlot): boolean {
  const { parent, key } = slot;
  if (parent === undefined) return false;
  switch (parent.type) {
    case 'MemberExpression':
      return key === 'property' && !parent.computed;
    case 'Property':
    case 'MethodDefinition':
    case 'PropertyDefinition':
      return key === 'key' && !parent.computed;
    case 'LabeledStatement':
    case 'BreakStatement':
    case 'ContinueStatement':
      return key === 'label';
    case 'MetaProperty':
      return true;
    default:
      return false;
  }
}

function globalObjectName(node: AnyNode): string | undefined {
  if (node.type === 'Identifier' && GLOBAL_OBJECTS.has(node.name)) return node.name;
  if (node.type === 'ThisExpression') return 'this';
  return undefined;
}

function isProcessObject(node: AnyNode): boolean {
  if (node.type === 'Identifier') return node.name === 'process';
  if (node.type === 'MemberExpression' && node.object.type !== 'Super') {
    return globalObjectName(node.object) !== undefined && memberKey(node) === 'process';
  }
  return false;
}

function loaderError(what: string, node: AnyNode): InvalidInputError {
  return new InvalidInputError(`exec: ${what} is not allowed (${nodeAt(node)}): a cell cannot load modules or native code. ${TOOLS_INSTEAD}`);
}

function checkNode(node: AnyNode, slot: NodeSlot, depth: number): void {
  switch (node.type) {
    case 'ImportExpression':
      throw new InvalidInputError(`exec: dynamic \`import()\` is not allowed (${nodeAt(node)}): a cell has no modules. ${TOOLS_INSTEAD}`);
    case 'MetaProperty':
      if (node.meta.name === 'import') throw loaderError('`import.meta`', node);
      return;
    case 'ImportDeclaration':
      throw new InvalidInputError(`exec: \`import\` declarations are not allowed (${nodeAt(node)}): a cell has no modules. ${TOOLS_INSTEAD}`);
    case 'Identifier':
      if (FORBIDDEN_IDENTIFIERS.has(node.name) && !isNameSlot(slot)) throw loaderError(`\`${node.name}\``, node);
      return;
    case 'MemberExpression': {
      if (node.object.type === 'Super') return;
      const key = memberKey(node);
      if (key === undefined) return;
      const owner = globalObjectName(node.object);
      if (owner !== undefined && GLOBAL_LOADER_KEYS.has(key)) throw loaderError(`\`${owner}.${key}\``, node);
      if (key === 'createRequire') throw loaderError('`createRequire`', node);
      if (PROCESS_LOADER_KEYS.has(key) && isProcessObject(node.object)) throw loaderError(`\`process.${key}\``, node);
      return;
    }
    case 'CallExpression':
    case 'NewExpression': {
      if (depth >= MAX_EVAL_DEPTH) return;
      const callee = node.callee;
      const name =
        callee.type === 'Identifier'
          ? callee.name
          : callee.type === 'MemberExpression' && callee.object.type !== 'Super' && globalObjectName(callee.object) !== undefined
            ? memberKey(callee)
            : undefined;
      if (name === undefined || !EVAL_CALLEES.has(name)) return;
      for (const arg of node.arguments) {
        if (arg.type === 'SpreadElement') continue;
        const text = staticString(arg);
        if (text !== undefined) checkEvaluatedString(text, arg, depth + 1);
      }
      return;
    }
    default:
      return;
  }
}

// Code in an eval string runs like cell code; if it does not parse, the guest will throw its own SyntaxError.
function checkEvaluatedString(text: string, at: AnyNode, depth: number): void {
  let program: Program;
  try {
    program = parseScript(text);
  } catch {
    return;
  }
  try {
    walk(program, (node, slot) => checkNode(node, slot, depth));
  } catch (error) {
    if (error instanceof InvalidInputError) {
      throw new InvalidInputError(`${error.message.replace(/ \(line \d+:\d+\)/, '')} Found in the string evaluated at ${nodeAt(at)}.`);
    }
    throw error;
  }
}

/** Reject module and loader patterns in a parsed cell. Throws InvalidInputError naming the pattern, its position and what to use. */
export function checkProgram(program: Program): void {
  walk(program, (node, slot) => checkNode(node, slot, 0));
}

/** Parse and check a JavaScript cell: the one entry the exec path uses. */
export function checkCellSource(source: string): Program {
  const program = parseCell(source);
  checkProgram(program);
  return program;
}
