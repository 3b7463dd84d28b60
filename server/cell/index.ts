// Cell preparation for exec: input rules -> optional typecheck -> TypeScript transform -> source checks -> cell body.
import { InvalidInputError } from '../errors.ts';
import type { Owner } from '../access/owners.ts';
import { prepareCell } from './cell.ts';
import { checkCellSource } from './checks.ts';
import { normalizeExecInput, type CellLanguage, type NormalizedExecInput } from './exec-input.ts';
import { toJavaScript } from './transform.ts';

export { normalizeExecInput, type CellLanguage, type NormalizedExecInput, type NormalizeExecOptions } from './exec-input.ts';
export { checkCellSource, looksLikeShellCommand } from './checks.ts';
export { prepareCell, type PreparedCell } from './cell.ts';
export { toJavaScript, transformTypeScript } from './transform.ts';
export { redactSource, isSecretName, REDACTION_MASK, type RedactOptions } from './redact.ts';
export type { CellDiagnostic } from './typecheck.ts';

/** Typecheck diagnostics an invalid_input message lists (the rest are counted): the first few are what the model fixes next, and the message stays small in its context. */
export const MAX_LISTED_DIAGNOSTICS = 10;

export interface PrepareExecOptions {
  /** The effective generated tool declarations (one ambient .d.ts); read only when the cell asks for a typecheck. */
  ambientDeclarations: () => string;
  /** The turn's abort signal and agent run id, for the typecheck thread (an aborted turn frees it; one queue place per run). */
  signal?: AbortSignal;
  runKey?: string;
  /** The turn's owner: the check's place in the typecheck queue counts against its share. */
  owner?: Owner;
  /** The input as the caller sent it, when a hook or trusted policy rewrote it (see normalizeExecInput). */
  callerInput?: unknown;
}

export interface PreparedExec {
  input: NormalizedExecInput;
  /** JavaScript for the body of an async function; its return value is the cell's value. */
  body: string;
  language: CellLanguage;
  /** Lines `body` adds before the user's line 1 (see PreparedCell). */
  lineOffset: number;
}

/** Everything exec does before a guest runs. Any problem throws InvalidInputError, before any tool is dispatched. */
export async function prepareExec(raw: unknown, options: PrepareExecOptions): Promise<PreparedExec> {
  const input = normalizeExecInput(raw, { callerInput: options.callerInput });
  if (input.typecheck) {
    // Only this path loads the TypeScript compiler.
    const { typecheckCell } = await import('./typecheck.ts');
    const diagnostics = await typecheckCell(input.code, options.ambientDeclarations(), {
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.runKey !== undefined ? { runKey: options.runKey } : {}),
      ...(options.owner !== undefined ? { owner: options.owner } : {}),
    });
    if (diagnostics.length > 0) {
      const listed = diagnostics.slice(0, MAX_LISTED_DIAGNOSTICS).map((d) => `line ${d.line}: ${d.message}`);
      const more = diagnostics.length - listed.length;
      if (more > 0) listed.push(`... and ${more} more`);
      throw new InvalidInputError(
        `exec typecheck failed (${diagnostics.length} ${diagnostics.length === 1 ? 'error' : 'errors'}); no tool ran. Fix the cell against the declarations (API.read) or drop "typecheck":\n${listed.join('\n')}`,
      );
    }
  }
  const code = toJavaScript(input.code, input.language);
  const program = checkCellSource(code);
  const cell = prepareCell({ code, language: input.language, program });
  return { input, body: cell.body, language: cell.language, lineOffset: cell.lineOffset };
}
