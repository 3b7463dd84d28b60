// Snapshot encoding (format 2): pages that differ from the base image, XORed with it, deflated; header checked on decode.
import { randomFillSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { baseImageHash, decodeSnapshot, encodeSnapshot, SnapshotFormatError, type BaseImage } from './snapshot-codec.mjs';

const PAGE = 4096;
const moduleHash = new Uint8Array(32).fill(7);

/** A base of 64 pages of random bytes (so a page equal to it is not merely zero, and does not compress). */
function baseImage(pages = 64): BaseImage {
  const memory = randomFillSync(new Uint8Array(pages * PAGE));
  return { memory, hash: baseImageHash(moduleHash, memory) };
}

const emptyBase: BaseImage = { memory: new Uint8Array(0), hash: baseImageHash(moduleHash, new Uint8Array(0)) };

/** The base, grown by `extraPages` (the VM allocated more), with one word changed in `changed` pages. */
function derived(base: BaseImage, changed: number[], extraPages = 0, tail = 0): Uint8Array {
  const mem = new Uint8Array(base.memory.length + extraPages * PAGE + tail);
  mem.set(base.memory);
  for (const p of changed) mem[p * PAGE + 100] = (mem[p * PAGE + 100] ?? 0) ^ 0x5a;
  if (extraPages > 0) mem[base.memory.length + 10] = 1;
  if (tail > 0) mem[mem.length - 1] = 9;
  return mem;
}

const snap = (memory: Uint8Array) => ({ memory, stackPointer: 11, runtimePtr: 22, contextPtr: 33 });

describe('snapshot codec', () => {
  it('on round trip: restores memory and pointers byte for byte, pages past the base and a ragged tail included', () => {
    const base = baseImage();
    const mem = derived(base, [0, 10, 63], 3, 100);
    const enc = encodeSnapshot(snap(mem), base);
    const dec = decodeSnapshot(enc.bytes, base);
    expect(Buffer.from(dec.memory).equals(Buffer.from(mem))).toBe(true);
    expect([dec.stackPointer, dec.runtimePtr, dec.contextPtr]).toEqual([11, 22, 33]);
    expect(enc.rawBytes).toBe(mem.length);
    expect(enc.storedBytes).toBe(enc.bytes.length);
  });

  it('on a VM close to its base: stores a small fraction of what the same memory stores without one', () => {
    const base = baseImage();
    const mem = derived(base, [1, 2, 3, 40]);
    const delta = encodeSnapshot(snap(mem), base);
    const whole = encodeSnapshot(snap(mem), emptyBase);
    // random bytes do not compress: without the base every page is stored; with it four nearly-zero pages
    expect(whole.storedBytes).toBeGreaterThan(mem.length * 0.9);
    expect(delta.storedBytes).toBeLessThan(1024);
    expect(Buffer.from(decodeSnapshot(whole.bytes, emptyBase).memory).equals(Buffer.from(mem))).toBe(true);
  });

  it('on a snapshot whose base this process does not have: refuses it like a foreign module', () => {
    const base = baseImage();
    const enc = encodeSnapshot(snap(derived(base, [5])), base);
    const other = { ...base, hash: baseImageHash(new Uint8Array(32).fill(8), base.memory) };
    expect(() => decodeSnapshot(enc.bytes, other)).toThrow(SnapshotFormatError);
    expect(() => decodeSnapshot(enc.bytes, other)).toThrow(/different QuickJS WASM build or base image/);
  });

  it('on a format-1 snapshot (whole pages, no base): refuses it, naming both formats', () => {
    const v1 = new Uint8Array(64);
    new DataView(v1.buffer).setUint32(0, 0x434d534e);
    new DataView(v1.buffer).setUint32(4, 1, true);
    expect(() => decodeSnapshot(v1, baseImage())).toThrow(/snapshot format 1 is not supported \(expected 2\)/);
  });

  it('on truncated or foreign bytes: refuses them', () => {
    const base = baseImage();
    const enc = encodeSnapshot(snap(derived(base, [5])), base);
    expect(() => decodeSnapshot(enc.bytes.subarray(0, enc.bytes.length - 5), base)).toThrow(/length/);
    expect(() => decodeSnapshot(new Uint8Array(100), base)).toThrow(/not a code mode snapshot/);
    expect(() => decodeSnapshot(new Uint8Array(3), base)).toThrow(/truncated/);
  });

  it('on many encodes in a row: each result stands alone (the reused scratch buffer leaks nothing between them)', () => {
    const base = baseImage();
    const a = derived(base, [1, 2, 3], 2);
    const b = derived(base, [4]);
    const encA = encodeSnapshot(snap(a), base);
    const encB = encodeSnapshot(snap(b), base);
    expect(Buffer.from(decodeSnapshot(encA.bytes, base).memory).equals(Buffer.from(a))).toBe(true);
    expect(Buffer.from(decodeSnapshot(encB.bytes, base).memory).equals(Buffer.from(b))).toBe(true);
  });
});

describe('snapshot codec: decoding into a reused buffer', () => {
  it('decodes into the buffer it is given, leaving nothing of what the buffer held before', () => {
    const base = baseImage();
    const mem = derived(base, [3], 2);
    const enc = encodeSnapshot(snap(mem), base);
    const reused = new Uint8Array(mem.length).fill(0xee);
    const dec = decodeSnapshot(enc.bytes, base, (rawBytes) => reused.subarray(0, rawBytes));
    expect(dec.memory.buffer).toBe(reused.buffer);
    expect(Buffer.from(dec.memory).equals(Buffer.from(mem))).toBe(true);
  });

  it('on a buffer of the wrong size: refuses to decode into it', () => {
    const base = baseImage();
    const enc = encodeSnapshot(snap(derived(base, [3])), base);
    expect(() => decodeSnapshot(enc.bytes, base, (rawBytes) => new Uint8Array(rawBytes - 4))).toThrow(/does not fit/);
  });
});
