// A catalog's virtual declaration files (API.list / API.read) packed once into shared memory, so every leg of every
// cell carries them by reference instead of by copy.
//
// The files of a catalog over a big source run to megabytes (GitHub's REST API: 1,226 files, 3.5 MB): copied into
// each leg message they cost tens of milliseconds per leg on both threads, for files most cells never read. The pack
// is one SharedArrayBuffer, built when a turn's catalog is (and kept with it); a leg message shares it without a
// copy, and the worker reads only the index and the files the guest asks for. API.list and API.read stay answered
// inside the worker, synchronously, without a bridge request (spec 03: "without a bridge/tool call").
//
// Layout: a 4-byte little-endian length L, then L bytes of UTF-8 JSON, the index `[path, offset, length, ...]` sorted
// by path (offsets in bytes from the end of the index), then the files' UTF-8 texts. The pack is built by the host
// from the catalog (trusted) and never written after; the reader still checks every offset against the buffer.
//
// Plain JavaScript on purpose: worker entry files import it as it is (typed through JSDoc).

/**
 * A catalog's declaration files in shared memory: a leg message carries it without copying the texts.
 * @typedef {{ readonly buffer: SharedArrayBuffer }} DeclarationFiles
 */
/**
 * What a worker reads a pack through.
 * @typedef {object} DeclarationFilesReader
 * @property {(prefix: string) => string[]} list
 * @property {(path: string) => string | undefined} read
 */

const HEADER_BYTES = 4;

/**
 * A pack of `files` (path -> text), paths sorted.
 * @param {Iterable<readonly [string, string]>} files
 * @returns {DeclarationFiles}
 */
export function packDeclarationFiles(files) {
  const entries = [...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  /** @type {Array<string | number>} */
  const index = [];
  let bodyBytes = 0;
  for (const [path, text] of entries) {
    const length = Buffer.byteLength(text, 'utf8');
    index.push(path, bodyBytes, length);
    bodyBytes += length;
  }
  const indexText = JSON.stringify(index);
  const indexBytes = Buffer.byteLength(indexText, 'utf8');
  const buffer = new SharedArrayBuffer(HEADER_BYTES + indexBytes + bodyBytes);
  const bytes = Buffer.from(buffer);
  bytes.writeUInt32LE(indexBytes, 0);
  bytes.write(indexText, HEADER_BYTES, 'utf8');
  let at = HEADER_BYTES + indexBytes;
  for (const [, text] of entries) at += bytes.write(text, at, 'utf8');
  return Object.freeze({ buffer });
}

/** A pack with no files (the warm-up cells, executors driven by hand). */
export const NO_DECLARATION_FILES = packDeclarationFiles([]);

/**
 * Reads a pack: `list(prefix)` and `read(path)`. The index is parsed at the first call (a leg that never calls
 * API pays nothing), then kept with the reader; file texts are decoded one at a time, when read. A pack that is not
 * one (a missing or malformed buffer) reads as no files.
 * @param {DeclarationFiles | undefined} pack
 * @returns {DeclarationFilesReader}
 */
export function declarationFilesReader(pack) {
  /** @type {Map<string, { offset: number, length: number }> | null} */
  let index = null;
  let bodyStart = 0;
  /** @type {Buffer | null} */
  let bytes = null;
  const load = () => {
    if (index) return index;
    index = new Map();
    const buffer = pack?.buffer;
    if (!(buffer instanceof SharedArrayBuffer) || buffer.byteLength < HEADER_BYTES) return index;
    bytes = Buffer.from(buffer);
    const indexBytes = bytes.readUInt32LE(0);
    if (HEADER_BYTES + indexBytes > bytes.length) return index;
    let flat;
    try {
      flat = JSON.parse(bytes.toString('utf8', HEADER_BYTES, HEADER_BYTES + indexBytes));
    } catch {
      return index;
    }
    if (!Array.isArray(flat)) return index;
    bodyStart = HEADER_BYTES + indexBytes;
    for (let i = 0; i + 2 < flat.length; i += 3) {
      const [path, offset, length] = [flat[i], flat[i + 1], flat[i + 2]];
      if (typeof path !== 'string' || !Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0) continue;
      if (bodyStart + offset + length > bytes.length) continue;
      index.set(path, { offset, length });
    }
    return index;
  };
  return {
    /** Paths starting with `prefix`, sorted. */
    list(prefix) {
      /** @type {string[]} */
      const out = [];
      for (const path of load().keys()) if (path.startsWith(prefix)) out.push(path);
      return out;
    },
    /** The text of `path`, or undefined when the pack has no such file. */
    read(path) {
      const at = load().get(path);
      if (at === undefined || bytes === null) return undefined;
      return bytes.toString('utf8', bodyStart + at.offset, bodyStart + at.offset + at.length);
    },
  };
}
