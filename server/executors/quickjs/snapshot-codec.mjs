// Snapshot encoding: a header (format version, WASM module hash, raw size) then the VM memory with
// all-zero 4 KiB pages skipped, deflated. Snapshots are host-only data tied to one WASM build.
import { deflateRawSync, inflateRawSync, constants } from 'node:zlib';

const MAGIC = 0x434d534e; // "CMSN"
export const SNAPSHOT_FORMAT_VERSION = 1;
const PAGE = 4096;
const HASH_BYTES = 32;
// magic, version, raw size, stack pointer, runtime ptr, context ptr, page count, body length
const HEADER_BYTES = 4 + 4 + HASH_BYTES + 4 * 6;

export class SnapshotFormatError extends Error {
  constructor(message) {
    super(message);
    this.name = 'SnapshotFormatError';
  }
}

/**
 * @param {{ memory: Uint8Array, stackPointer: number, runtimePtr: number, contextPtr: number }} snapshot
 * @param {Uint8Array} moduleHash sha256 of the WASM module bytes
 * @returns {{ bytes: Uint8Array, rawBytes: number, storedBytes: number }}
 */
export function encodeSnapshot(snapshot, moduleHash) {
  const mem = snapshot.memory;
  const pageCount = Math.ceil(mem.length / PAGE);
  const bitmap = new Uint8Array(Math.ceil(pageCount / 8));
  const words = new Uint32Array(mem.buffer, mem.byteOffset, Math.floor(mem.byteLength / 4));
  const wordsPerPage = PAGE / 4;
  const kept = [];
  for (let p = 0; p < pageCount; p++) {
    const start = p * wordsPerPage;
    const endWord = Math.min(start + wordsPerPage, words.length);
    let nonZero = false;
    for (let w = start; w < endWord; w++) {
      if (words[w] !== 0) {
        nonZero = true;
        break;
      }
    }
    // the tail (if memory is not a multiple of 4) is always kept
    if (nonZero || (p === pageCount - 1 && mem.length % 4 !== 0)) {
      bitmap[p >> 3] |= 1 << (p & 7);
      kept.push(p);
    }
  }
  const pages = new Uint8Array(bitmap.length + kept.length * PAGE);
  pages.set(bitmap, 0);
  let off = bitmap.length;
  for (const p of kept) {
    const slice = mem.subarray(p * PAGE, Math.min((p + 1) * PAGE, mem.length));
    pages.set(slice, off);
    off += PAGE;
  }
  const body = deflateRawSync(pages.subarray(0, off), { level: constants.Z_BEST_SPEED });
  const out = new Uint8Array(HEADER_BYTES + body.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC);
  view.setUint32(4, SNAPSHOT_FORMAT_VERSION, true);
  out.set(moduleHash.subarray(0, HASH_BYTES), 8);
  let h = 8 + HASH_BYTES;
  for (const v of [mem.length, snapshot.stackPointer, snapshot.runtimePtr, snapshot.contextPtr, pageCount, body.length]) {
    view.setUint32(h, v, true);
    h += 4;
  }
  out.set(body, HEADER_BYTES);
  return { bytes: out, rawBytes: mem.length, storedBytes: out.length };
}

/**
 * @param {Uint8Array} bytes
 * @param {Uint8Array} moduleHash
 */
export function decodeSnapshot(bytes, moduleHash) {
  if (bytes.length < HEADER_BYTES) throw new SnapshotFormatError('snapshot is truncated');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0) !== MAGIC) throw new SnapshotFormatError('not a code mode snapshot');
  const version = view.getUint32(4, true);
  if (version !== SNAPSHOT_FORMAT_VERSION) {
    throw new SnapshotFormatError(`snapshot format ${version} is not supported (expected ${SNAPSHOT_FORMAT_VERSION})`);
  }
  const hash = bytes.subarray(8, 8 + HASH_BYTES);
  for (let i = 0; i < HASH_BYTES; i++) {
    if (hash[i] !== moduleHash[i]) throw new SnapshotFormatError('snapshot was taken with a different QuickJS WASM build');
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
  const pages = inflateRawSync(bytes.subarray(HEADER_BYTES));
  const bitmapLength = Math.ceil(pageCount / 8);
  const memory = new Uint8Array(rawSize);
  let off = bitmapLength;
  for (let p = 0; p < pageCount; p++) {
    if (pages[p >> 3] & (1 << (p & 7))) {
      const len = Math.min(PAGE, rawSize - p * PAGE);
      memory.set(pages.subarray(off, off + len), p * PAGE);
      off += PAGE;
    }
  }
  return { memory, stackPointer, runtimePtr, contextPtr, extensions: [] };
}
