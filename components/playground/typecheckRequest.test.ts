// The typecheck fields Run sends: inferred types only on top of a server typecheck of a TypeScript cell.
import { describe, expect, it } from 'vitest';
import { serverTypechecks, typecheckRequest } from './typecheckRequest.ts';

describe('typecheckRequest', () => {
  it('on a TypeScript cell with typecheck and the inferred box on: asks for both', () => {
    expect(typecheckRequest({ language: 'typescript', typecheck: true, typecheckInferred: true })).toEqual({ inputFields: { typecheck: true }, requestFields: { typecheckInferred: true } });
  });

  it('with the inferred box off (the default): typecheck against the declared types only', () => {
    expect(typecheckRequest({ language: 'typescript', typecheck: true, typecheckInferred: false })).toEqual({ inputFields: { typecheck: true }, requestFields: {} });
  });

  it('without a server typecheck (typecheck off, or a JavaScript cell): sends neither, whatever the inferred box says', () => {
    expect(typecheckRequest({ language: 'typescript', typecheck: false, typecheckInferred: true })).toEqual({ inputFields: {}, requestFields: {} });
    expect(typecheckRequest({ language: 'javascript', typecheck: true, typecheckInferred: true })).toEqual({ inputFields: {}, requestFields: {} });
    expect(serverTypechecks({ language: 'javascript', typecheck: true })).toBe(false);
    expect(serverTypechecks({ language: 'typescript', typecheck: true })).toBe(true);
  });
});
