// TypeScript module syntax a cell cannot run: a namespace (or `module M {}`) with code in it, and `export =`.
//
// sucrase treats every namespace as types only and drops it, so `namespace N { export const y = 1 }` left the
// cell failing later with "N is not defined"; and it turns `export = x` into `module.exports = x`, which fails
// with "module is not defined". Both are refused before the cell runs, saying what to write instead, as plain
// `export` is (checks.ts). Read from sucrase's own tokens, so strings, comments and a variable named
// `namespace` are never mistaken for the syntax; an ambient `declare namespace`/`declare module` is types
// only and stays allowed, with everything inside it.
import { parse } from 'sucrase/dist/esm/parser/index.js';
import { ContextualKeyword } from 'sucrase/dist/esm/parser/tokenizer/keywords.js';
import { TokenType } from 'sucrase/dist/esm/parser/tokenizer/types.js';
import { InvalidInputError } from '../errors.ts';

/** Words the refused syntax cannot do without: a source without any of them is not scanned. */
const MODULE_WORDS = /\b(?:namespace|module|export)\b/;

/** What may follow `declare` to open an ambient block, and the tokens of the name before its `{`. */
const AMBIENT_BLOCKS: ReadonlySet<ContextualKeyword> = new Set([ContextualKeyword._namespace, ContextualKeyword._module, ContextualKeyword._global]);
const NAME_PARTS: ReadonlySet<TokenType> = new Set([TokenType.name, TokenType.string, TokenType.dot]);

function lineColumn(source: string, offset: number): string {
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  return `line ${line}:${offset - before.lastIndexOf('\n')}`;
}

/** Index of the `}` closing the `{` at `from`, or the last token when it has none. */
function blockEnd(tokens: ReadonlyArray<{ type: TokenType }>, from: number): number {
  let depth = 0;
  for (let i = from; i < tokens.length; i++) {
    const type = tokens[i]!.type;
    // `${` opens a template's expression and its `}` closes it: both count as braces
    if (type === TokenType.braceL || type === TokenType.dollarBraceL) depth++;
    else if (type === TokenType.braceR && --depth === 0) return i;
  }
  return tokens.length - 1;
}

/** Throws InvalidInputError on a namespace or `export =` in TypeScript that already parsed (transformTypeScript). */
export function checkTypeScriptModules(source: string): void {
  if (!MODULE_WORDS.test(source)) return;
  const { tokens } = parse(source, false, true, false);
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const next = tokens[i + 1];
    if (token.type === TokenType._export && next?.type === TokenType.eq) {
      throw new InvalidInputError(
        `exec: \`export =\` at ${lineColumn(source, token.start)} is not allowed: a cell is not a module. Return the value instead (\`return value;\`).`,
      );
    }
    const keyword = token.contextualKeyword;
    if (keyword === ContextualKeyword._declare && token.isType && next !== undefined && AMBIENT_BLOCKS.has(next.contextualKeyword)) {
      // `declare namespace A.B {`, `declare module "x" {`, `declare global {`: skip the block, types only
      let j = i + 2;
      while (j < tokens.length && NAME_PARTS.has(tokens[j]!.type)) j++;
      if (tokens[j]?.type === TokenType.braceL) i = blockEnd(tokens, j);
      continue;
    }
    if ((keyword !== ContextualKeyword._namespace && keyword !== ContextualKeyword._module) || !token.isType || next?.type !== TokenType.name) continue;
    const word = keyword === ContextualKeyword._namespace ? 'namespace' : 'module';
    const name = source.slice(next.start, next.end);
    throw new InvalidInputError(
      `exec: TypeScript \`${word} ${name}\` at ${lineColumn(source, token.start)} is not supported in a cell: its code would be dropped, not run. ` +
        `Use an object instead (\`const ${name} = { ... };\`), and declare types at the top level.`,
    );
  }
}
