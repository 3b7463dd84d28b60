// Opt-in typecheck of a TypeScript cell against the generated tool declarations, in a worker thread under a hard deadline.
//
// Only `typecheck: true` reaches this file, and the compiler loads only in the typecheck thread
// (typecheck-worker.mjs), never on the Gateway's event loop: a small recursive or conditional type can keep the
// checker busy for seconds or minutes, and on the event loop that would stall every client. One thread is kept
// warm (TypeScript and lib.es2022 loaded and bound) and serves checks one at a time; a check that outlives
// TYPECHECK_DEADLINE_MS is stopped by terminating the thread, and a fresh one starts at once.
import { CodeModeError, InvalidInputError } from '../errors.ts';
import { DeadlineWorker } from '../offload/deadline-worker.ts';
import type { Owner } from '../access/owners.ts';
import type { CellTypeDiagnostic, CellTypesLanguage } from '../../shared/cell-types.mjs';

/** A diagnostic on the user's lines (1-based line and column, its end, the message and TypeScript's code); see shared/cell-types.mjs. */
export type CellDiagnostic = CellTypeDiagnostic;

/**
 * A warm check of a cell against the catalog's declarations takes tens of milliseconds; one that needs seconds is
 * a pathological type (deep recursion, large unions compared pairwise). 5 s leaves a loaded 2-core machine ample
 * room for an ordinary cell and still answers well inside a model's patience.
 */
export const TYPECHECK_DEADLINE_MS = 5000;
/** Loading TypeScript and binding lib.es2022 takes one to three seconds on a busy 2-core machine; this bounds a machine that cannot. */
export const TYPECHECK_START_TIMEOUT_MS = 60_000;
/** Checks waiting for the one thread beyond the running one; more is refused rather than queued without end. */
export const MAX_QUEUED_TYPECHECKS = 16;

/** One typecheck job, as typecheck-worker.mjs reads it. */
export interface CheckJob {
  source: string;
  declarations: string;
  language: CellTypesLanguage;
}
export type CheckResult = { diagnostics: CellDiagnostic[] } | { hostFault: string };

export interface TypeCheckerOptions {
  deadlineMs?: number;
}

export interface CheckOptions {
  /** The turn's signal: an aborted turn's check leaves the queue, or frees the thread, at once. */
  signal?: AbortSignal;
  /** The agent run (turn) it belongs to: one place in the thread's queue per run (DeadlineWorker fairness). */
  runKey?: string;
  /** Whose share of queue places the check takes (the turn's owner). */
  owner?: Owner;
  /**
   * The cell's language (default typescript). exec typechecks TypeScript cells only (the spec's rule); a JavaScript
   * check is the editor's world (shared/cell-types.mjs, checkJs), used by the test that holds the editor to the server.
   */
  language?: CellTypesLanguage;
}

/** The typecheck thread and its deadline; `typecheckCell` uses the process's shared one. */
export class TypeChecker {
  readonly worker: DeadlineWorker<CheckJob, CheckResult>;
  readonly deadlineMs: number;

  constructor(opts: TypeCheckerOptions = {}) {
    this.deadlineMs = opts.deadlineMs ?? TYPECHECK_DEADLINE_MS;
    this.worker = new DeadlineWorker({
      entry: new URL('./typecheck-worker.mjs', import.meta.url),
      name: 'typecheck',
      deadlineMs: this.deadlineMs,
      startTimeoutMs: TYPECHECK_START_TIMEOUT_MS,
      maxQueued: MAX_QUEUED_TYPECHECKS,
    });
  }

  /**
   * The cell's diagnostics (empty when it typechecks), positioned on the user's lines. A check past the deadline
   * is the cell's fault (InvalidInputError, saying what to do); a thread that cannot run is a host fault
   * (CodeModeError runtime_unavailable or internal_error).
   */
  async check(tsSource: string, ambientDeclarations: string, opts: CheckOptions = {}): Promise<CellDiagnostic[]> {
    const outcome = await this.worker.run({ source: tsSource, declarations: ambientDeclarations, language: opts.language ?? 'typescript' }, opts.signal, opts.runKey, opts.owner);
    if (outcome.ok) {
      if ('hostFault' in outcome.value) throw new CodeModeError('internal_error', outcome.value.hostFault);
      return outcome.value.diagnostics;
    }
    switch (outcome.reason) {
      case 'timeout':
        throw new InvalidInputError(
          `exec typecheck took longer than ${this.deadlineMs} ms and was stopped; no tool ran. Simplify the cell's types (deeply recursive or conditional types, large unions) or drop "typecheck".`,
        );
      case 'aborted':
        throw new CodeModeError('aborted', 'exec typecheck was canceled because the agent run was aborted; no tool ran.');
      case 'busy':
        throw new CodeModeError('runtime_unavailable', `exec typecheck is busy (${outcome.message}); no tool ran.`);
      case 'failed':
        throw new CodeModeError('internal_error', `exec typecheck failed inside the compiler (${outcome.message}); drop "typecheck" to run the cell unchecked.`);
      default:
        throw new CodeModeError('runtime_unavailable', `exec typecheck is unavailable: ${outcome.message}; no tool ran.`);
    }
  }

  close(): Promise<void> {
    return this.worker.close();
  }
}

let shared: TypeChecker | undefined;

/** The process's typecheck thread: made by the first typecheck, which starts the thread and pays its warm-up; kept warm after. */
export function sharedTypeChecker(): TypeChecker {
  shared ??= new TypeChecker();
  return shared;
}

/** Typecheck a TypeScript cell; returns the cell's diagnostics (empty when it typechecks), positioned on the user's lines. */
export function typecheckCell(tsSource: string, ambientDeclarations: string, opts: CheckOptions = {}): Promise<CellDiagnostic[]> {
  return sharedTypeChecker().check(tsSource, ambientDeclarations, opts);
}
