// results.save/load/delete: normalized JSON kept for the admitted catalog's lifetime (one agent turn).
//
// Spec: at most 64 entries and min(memoryLimitBytes, maxSnapshotBytes) encoded JSON bytes; capacity
// errors keep existing entries; loads return detached copies and carry network-content provenance.
import { randomBytes } from 'node:crypto';
import { ToolError } from '../errors.ts';

/** Spec: "The store admits at most 64 entries". */
export const MAX_RESULT_ENTRIES = 64;

interface Entry {
  json: string;
  bytes: number;
  networkContent: boolean;
}

export class ResultsStore {
  private readonly entries = new Map<string, Entry>();
  private usedBytes = 0;
  private closed = false;

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
    if (!e) throw new ToolError(`no saved result "${ref}" in this turn; references expire when the reply ends - use store()/load() for values needed later`, 'not_found');
    return { json: e.json, networkContent: e.networkContent };
  }

  delete(ref: string): boolean {
    const e = this.entries.get(ref);
    if (!e) return false;
    this.entries.delete(ref);
    this.usedBytes -= e.bytes;
    return true;
  }

  /** Catalog teardown or the turn's end: every reference expires. */
  clear(): void {
    this.entries.clear();
    this.usedBytes = 0;
    this.closed = true;
  }

  private assertOpen(): void {
    if (this.closed) throw new ToolError('this turn has ended; saved results expired with it', 'expired');
  }
}
