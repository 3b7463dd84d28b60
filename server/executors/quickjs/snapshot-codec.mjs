// Snapshot encoding, format 2: a suspended VM stored as its difference from the base image.
//
// Every VM starts from the same image: the WASM module, the guest prelude and QuickJS's own start-up.
// The executor builds that image once per process (base-image.ts) and shares it with every worker; a
// snapshot keeps only the 4 KiB pages that differ from it, each XORed with the base page (a page past
// the base's end against zeros), so a page where a few words changed is mostly zeros. Those pages are
// deflated. The header names the base image by hash: a snapshot whose base this process does not have
// (another WASM build, another prelude, another process) is refused like a foreign module, and so is a
// format-1 snapshot (whole pages, no base). Snapshots are host-only data tied to one process.
//
// The page loops index typed arrays within bounds they establish themselves, which tsc's noUncheckedIndexedAccess
// cannot see: those reads are cast to number (no run-time cost), not checked again.
import { createHash } from 'node:crypto';
import { deflateRawSync, inflateRawSync, constants } from 'node:zlib';

const MAGIC = 0x434d534e; // "CMSN"
export const SNAPSHOT_FORMAT_VERSION = 2;
const PAGE = 4096;
const WORDS_PER_PAGE = PAGE / 4;
const HASH_BYTES = 32;
// magic, version, base hash, raw size, stack pointer, runtime ptr, context ptr, page count, body length
const HEADER_BYTES = 4 + 4 + HASH_BYTES + 4 * 6;

export class SnapshotFormatError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'SnapshotFormatError';
  }
}

/**
 * The hash that names a base image: the WASM module's hash and the image's memory.
 * @param {Uint8Array} moduleHash
 * @param {Uint8Array} memory
 */
export function baseImageHash(moduleHash, memory) {
  return new Uint8Array(createHash('sha256').update(moduleHash).update(memory).digest());
}

// One growing buffer for the changed pages: a worker encodes one snapshot at a time, and reusing it
// keeps a burst of parks from allocating a memory-sized buffer each (deflate copies what it reads).
let scratch = new Uint8Array(0);

/** The page map's bytes, rounded up to whole words so the pages after it stay 4-byte aligned. @param {number} pageCount */
function bitmapBytes(pageCount) {
  return Math.ceil(pageCount / 32) * 4;
}

/** A word view of `bytes`, copied when it is not 4-byte aligned (the tail past a whole word is dropped). @param {Uint8Array} bytes */
function words(bytes) {
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  return new Uint32Array(aligned.buffer, aligned.byteOffset, aligned.byteLength >> 2);
}

/**
 * A VM's memory and the pointers QuickJS.restore needs (what quickjs-wasi's `vm.snapshot()` returns).
 * @typedef {{ memory: Uint8Array, stackPointer: number, runtimePtr: number, contextPtr: number }} RawSnapshot
 */
/**
 * The image every VM of this process starts from (module + prelude), named by baseImageHash.
 * @typedef {{ memory: Uint8Array, hash: Uint8Array }} BaseImage
 */

/**
 * @param {RawSnapshot} snapshot
 * @param {BaseImage} base the base image every VM of this process starts from
 * @returns {{ bytes: Uint8Array, rawBytes: number, storedBytes: number }}
 */
export function encodeSnapshot(snapshot, base) {
  const mem = snapshot.memory;
  const pageCount = Math.ceil(mem.length / PAGE);
  const bitmapLength = bitmapBytes(pageCount);
  const needed = bitmapLength + pageCount * PAGE;
  if (scratch.length < needed) scratch = new Uint8Array(needed);
  const out = scratch;
  out.fill(0, 0, bitmapLength);
  const m32 = words(mem);
  const b32 = words(base.memory);
  let off = bitmapLength;
  for (let p = 0; p < pageCount; p++) {
    const start = p * WORDS_PER_PAGE;
    const end = Math.min(start + WORDS_PER_PAGE, m32.length);
    const inBase = Math.max(start, Math.min(end, b32.length));
    let w = start;
    while (w < inBase && m32[w] === b32[w]) w++;
    if (w === inBase) while (w < end && m32[w] === 0) w++;
    // a page whose bytes are not all whole words (a memory that is not a multiple of 4) is always kept
    const ragged = (p + 1) * PAGE > m32.length * 4 && mem.length % 4 !== 0;
    if (w === end && !ragged) continue;
    out[p >> 3] = /** @type {number} */ (out[p >> 3]) | (1 << (p & 7));
    if (!ragged && end - start === WORDS_PER_PAGE) {
      const o32 = new Uint32Array(out.buffer, out.byteOffset + off, WORDS_PER_PAGE);
      for (let i = start; i < end; i++) o32[i - start] = /** @type {number} */ (m32[i]) ^ (i < b32.length ? /** @type {number} */ (b32[i]) : 0);
    } else {
      const pageEnd = Math.min((p + 1) * PAGE, mem.length);
      for (let i = p * PAGE; i < pageEnd; i++) out[off + i - p * PAGE] = /** @type {number} */ (mem[i]) ^ (i < base.memory.length ? /** @type {number} */ (base.memory[i]) : 0);
      out.fill(0, off + pageEnd - p * PAGE, off + PAGE);
    }
    off += PAGE;
  }
  const body = deflateRawSync(out.subarray(0, off), { level: constants.Z_BEST_SPEED });
  const bytes = new Uint8Array(HEADER_BYTES + body.length);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, MAGIC);
  view.setUint32(4, SNAPSHOT_FORMAT_VERSION, true);
  bytes.set(base.hash.subarray(0, HASH_BYTES), 8);
  let h = 8 + HASH_BYTES;
  for (const v of [mem.length, snapshot.stackPointer, snapshot.runtimePtr, snapshot.contextPtr, pageCount, body.length]) {
    view.setUint32(h, v, true);
    h += 4;
  }
  bytes.set(body, HEADER_BYTES);
  return { bytes, rawBytes: mem.length, storedBytes: bytes.length };
}

/**
 * @param {Uint8Array} bytes
 * @param {BaseImage} base
 * @param {(rawBytes: number) => Uint8Array} [memoryFor] where to decode a memory of `rawBytes` (a
 *   reused buffer: fresh memory costs page faults); by default a new one
 * @returns {RawSnapshot & { extensions: [] }}
 */
export function decodeSnapshot(bytes, base, memoryFor = (rawBytes) => new Uint8Array(rawBytes)) {
  if (bytes.length < 8) throw new SnapshotFormatError('snapshot is truncated');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0) !== MAGIC) throw new SnapshotFormatError('not a code mode snapshot');
  const version = view.getUint32(4, true);
  if (version !== SNAPSHOT_FORMAT_VERSION) {
    throw new SnapshotFormatError(
      `snapshot format ${version} is not supported (expected ${SNAPSHOT_FORMAT_VERSION}); it was taken by another version of the runtime: run the cell again`,
    );
  }
  if (bytes.length < HEADER_BYTES) throw new SnapshotFormatError('snapshot is truncated');
  const hash = bytes.subarray(8, 8 + HASH_BYTES);
  for (let i = 0; i < HASH_BYTES; i++) {
    if (hash[i] !== base.hash[i]) {
      throw new SnapshotFormatError(
        'snapshot was taken with a different QuickJS WASM build or base image (another build, guest prelude or Gateway process); run the cell again',
      );
    }
  }
  let h = 8 + HASH_BYTES;
  const read = () => {
    const v = view.getUint32(h, true);
    h += 4;
    return v;
  };
  const rawSize = read();
  const stackPointer = read();
  const runtimePtr = read();
  const contextPtr = read();
  const pageCount = read();
  const bodyLength = read();
  if (HEADER_BYTES + bodyLength !== bytes.length) throw new SnapshotFormatError('snapshot length does not match its header');
  if (pageCount !== Math.ceil(rawSize / PAGE)) throw new SnapshotFormatError('snapshot page count does not match its size');
  const pages = inflateRawSync(bytes.subarray(HEADER_BYTES));
  const p32 = words(pages);
  const bitmapLength = bitmapBytes(pageCount);
  const memory = memoryFor(rawSize);
  if (memory.length !== rawSize || memory.byteOffset !== 0) throw new SnapshotFormatError('snapshot memory buffer does not fit');
  const m32 = new Uint32Array(memory.buffer, 0, rawSize >> 2);
  const fromBase = Math.min(rawSize, base.memory.length);
  memory.set(base.memory.subarray(0, fromBase));
  memory.fill(0, fromBase);
  let off = bitmapLength;
  for (let p = 0; p < pageCount; p++) {
    if (!(/** @type {number} */ (pages[p >> 3]) & (1 << (p & 7)))) continue;
    if (off + PAGE > pages.length) throw new SnapshotFormatError('snapshot body is shorter than its page map');
    const from = p * PAGE;
    const to = Math.min(from + PAGE, rawSize);
    if (to - from === PAGE) {
      const w0 = from >> 2;
      const o0 = off >> 2;
      for (let i = 0; i < WORDS_PER_PAGE; i++) m32[w0 + i] = /** @type {number} */ (m32[w0 + i]) ^ /** @type {number} */ (p32[o0 + i]);
    } else {
      for (let i = from; i < to; i++) memory[i] = /** @type {number} */ (memory[i]) ^ /** @type {number} */ (pages[off + i - from]);
    }
    off += PAGE;
  }
  return { memory, stackPointer, runtimePtr, contextPtr, extensions: [] };
}
