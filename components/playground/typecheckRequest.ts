// What Run sends for the typecheck settings: the server typecheck (TypeScript cells only) and, only on top of
// it, the user's opt-in to this turn's inferred output types (guesses from results, so never the default).
import type { CellLanguage } from '../editor/index.ts';

export interface TypecheckSettings {
  language: CellLanguage;
  typecheck: boolean;
  typecheckInferred: boolean;
}

/** Whether the server typechecks the cell at all (typecheck on, TypeScript): the inferred-types box applies only then. */
export function serverTypechecks(s: Pick<TypecheckSettings, 'language' | 'typecheck'>): boolean {
  return s.typecheck && s.language === 'typescript';
}

/** The exec (and compare) request's fields: `input.typecheck` and, only with it, `typecheckInferred`. */
export function typecheckRequest(s: TypecheckSettings): { inputFields: { typecheck?: true }; requestFields: { typecheckInferred?: true } } {
  if (!serverTypechecks(s)) return { inputFields: {}, requestFields: {} };
  return { inputFields: { typecheck: true }, requestFields: s.typecheckInferred ? { typecheckInferred: true } : {} };
}
