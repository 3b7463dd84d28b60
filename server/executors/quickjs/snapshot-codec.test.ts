// Snapshot encoding: zero pages skipped, deflated, header checked on decode.
import { describe, expect, it } from 'vitest';
import { decodeSnapshot, encodeSnapshot, SnapshotFormatError } from './snapshot-codec.mjs';

const hash = new Uint8Array(32).fill(7);

function memory(): Uint8Array {
  const mem = new Uint8Array(64 * 4096 + 100);
  for (let i = 0; i < 4096; i++) mem[i] = i & 0xff; // page 0
  mem[10 * 4096 + 5] = 42; // page 10
  mem[mem.length - 1] = 9; // short tail page
  return mem;
}

describe('snapshot codec', () => {
  it('on round trip: restores memory and pointers byte for byte', () => {
    const mem = memory();
    const enc = encodeSnapshot({ memory: mem, stackPointer: 11, runtimePtr: 22, contextPtr: 33 }, hash);
    const dec = decodeSnapshot(enc.bytes, hash);
    expect(Buffer.from(dec.memory).equals(Buffer.from(mem))).toBe(true);
    expect([dec.stackPointer, dec.runtimePtr, dec.contextPtr]).toEqual([11, 22, 33]);
    expect(enc.rawBytes).toBe(mem.length);
    expect(enc.storedBytes).toBe(enc.bytes.length);
    expect(enc.storedBytes).toBeLessThan(mem.length / 10);
  });

  it('on a snapshot from another WASM build: refuses it', () => {
    const enc = encodeSnapshot({ memory: memory(), stackPointer: 0, runtimePtr: 0, contextPtr: 0 }, hash);
    expect(() => decodeSnapshot(enc.bytes, new Uint8Array(32).fill(8))).toThrow(SnapshotFormatError);
  });

  it('on truncated or foreign bytes: refuses them', () => {
    const enc = encodeSnapshot({ memory: memory(), stackPointer: 0, runtimePtr: 0, contextPtr: 0 }, hash);
    expect(() => decodeSnapshot(enc.bytes.subarray(0, enc.bytes.length - 5), hash)).toThrow(/length/);
    expect(() => decodeSnapshot(new Uint8Array(100), hash)).toThrow(/not a code mode snapshot/);
  });
});
