// results.save/load/delete: normalized JSON kept for the admitted catalog's lifetime (one agent turn).
//
// Spec: at most 64 entries and min(memoryLimitBytes, maxSnapshotBytes) encoded JSON bytes; capacity
// errors keep existing entries; loads return detached copies and carry network-content provenance.
// A store is cleared once, for good: the turn ended or was aborted, or its catalog was restricted or
// replaced. Cells hold the store they captured when they started, so a cleared store stays cleared for
// them (they cannot adopt the turn's next one) and says why when they use it. The turn's next store
// (successor) remembers the references the cleared one held, so a later cell that loads one hears why it
// is gone, not that it never existed.
import { randomBytes } from 'node:crypto';
import { ToolError } from '../errors.ts';

/** Spec: "The store admits at most 64 entries". */
export const MAX_RESULT_ENTRIES = 64;

/** Why a store was cleared: each says so to a cell that still holds it. */
export type ResultsClearReason = 'turn_ended' | 'catalog_restricted';

/** References a successor store remembers from the stores cleared before it: more than one store holds (64). */
export const MAX_FORGOTTEN_REFS = 256;

/** What a later cell hears when it loads a reference its turn's restriction cleared. */
const forgottenMessage = (ref: string, reason: ResultsClearReason) =>
  reason === 'catalog_restricted'
    ? `saved result "${ref.slice(0, 80)}" was cleared when this turn's client tools were restricted or replaced (a tool removed, or its schema changed); references never outlive a permission change - recompute the value in this cell`
    : `saved result "${ref.slice(0, 80)}" expired with the turn that saved it`;

const CLEARED_MESSAGES: Record<ResultsClearReason, string> = {
  turn_ended: 'this turn has ended; saved results expired with it',
  catalog_restricted:
    "saved results were cleared when this turn's client tools were restricted or replaced, and this cell started before that; " +
    'references never outlive a permission change - return the data instead, or recompute it in a new cell',
};

interface Entry {
  json: string;
  bytes: number;
  networkContent: boolean;
}

export class ResultsStore {
  private readonly entries = new Map<string, Entry>();
  private usedBytes = 0;
  private cleared?: ResultsClearReason;
  /** References cleared with this store or an earlier one of its turn, and why (oldest first, bounded). */
  private readonly forgotten = new Map<string, ResultsClearReason>();

  constructor(readonly maxBytes: number) {}

  get size(): number {
    return this.entries.size;
  }

  get bytes(): number {
    return this.usedBytes;
  }

  save(json: string, networkContent: boolean): { ref: string; bytes: number } {
    this.assertOpen();
    const bytes = Buffer.byteLength(json, 'utf8');
    if (this.entries.size >= MAX_RESULT_ENTRIES) {
      throw new ToolError(`results store is full (${MAX_RESULT_ENTRIES} entries); results.delete(ref) entries you no longer need`, 'capacity_exceeded');
    }
    if (this.usedBytes + bytes > this.maxBytes) {
      throw new ToolError(
        `results store has ${this.maxBytes - this.usedBytes} bytes left and this value is ${bytes}; results.delete(ref) older entries or save a smaller value`,
        'capacity_exceeded',
      );
    }
    const ref = `res_${randomBytes(6).toString('hex')}`;
    this.entries.set(ref, { json, bytes, networkContent });
    this.usedBytes += bytes;
    return { ref, bytes };
  }

  load(ref: string): { json: string; networkContent: boolean } {
    this.assertOpen();
    const e = this.entries.get(ref);
    if (!e) {
      const why = this.forgotten.get(ref);
      if (why) throw new ToolError(forgottenMessage(ref, why), 'expired');
      throw new ToolError(`no saved result "${ref}" in this turn; references expire when the reply ends - use store()/load() for values needed later`, 'not_found');
    }
    return { json: e.json, networkContent: e.networkContent };
  }

  delete(ref: string): boolean {
    const e = this.entries.get(ref);
    if (!e) return false;
    this.entries.delete(ref);
    this.usedBytes -= e.bytes;
    return true;
  }

  /** Whether the store was cleared (and why): it then refuses every save and load. */
  get clearedBy(): ResultsClearReason | undefined {
    return this.cleared;
  }

  /** Every reference expires and the store refuses later use; the first reason is the one cells hear. */
  clear(reason: ResultsClearReason): void {
    for (const ref of this.entries.keys()) this.remember(ref, reason);
    this.entries.clear();
    this.usedBytes = 0;
    this.cleared ??= reason;
  }

  /** The turn's next store after this one was cleared: empty, remembering this store's references and why they went. */
  successor(maxBytes: number): ResultsStore {
    const next = new ResultsStore(maxBytes);
    for (const [ref, why] of this.forgotten) next.remember(ref, why);
    return next;
  }

  private remember(ref: string, why: ResultsClearReason): void {
    this.forgotten.delete(ref);
    this.forgotten.set(ref, why);
    if (this.forgotten.size > MAX_FORGOTTEN_REFS) this.forgotten.delete(this.forgotten.keys().next().value!);
  }

  private assertOpen(): void {
    if (this.cleared) throw new ToolError(CLEARED_MESSAGES[this.cleared], 'expired');
  }
}
