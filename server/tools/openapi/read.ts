// An OpenAPI document's text read into operations and named schemas, off the event loop: a worker thread parses,
// names and maps it (GitHub's 13 MB description: one to two seconds of CPU), and the Gateway keeps answering meanwhile.
//
// The document goes in as UTF-8 bytes, moved rather than copied (a 13 MB string would take the Gateway's thread a few
// hundred milliseconds to copy into the worker, and decoding it there is the worker's work). What crosses back is the read as
// JSON text in UTF-8 bytes, transferred, in parts of READ_PART_ITEMS operations or named schemas: they are tens of
// thousands of small objects, which the thread copy decodes an order of magnitude slower than JSON.parse reads their
// text, and the Gateway's thread parses one part per turn of its event loop (GitHub's: 4.6 MB, 50-100 ms in one go). The worker is started per load and ends with it (loads are rare: a source added or reloaded).
import { Worker } from 'node:worker_threads';
import type { JsonSchema } from '../types.ts';
import { loadDocumentText, OpenApiDocumentError } from './document.ts';
import { mapDocument, type MappedDocument } from './mapping.ts';
import { OpenApiSchemas, SchemaBoundsError } from './schemas.ts';

/**
 * Hard limit of one read in the worker, its start included: the schemas' own time bound (MAX_OPENAPI_SCHEMA_MS,
 * 20 s) plus the parse and a worker start (loading the TypeScript loader) on a busy machine. Past it the worker
 * is ended and the load fails.
 */
export const OPENAPI_READ_TIMEOUT_MS = 60_000;
/**
 * The reader thread's heap: a document of sources.maxDocumentBytes (32 MiB by default) parses into a few hundred
 * MiB of objects, and GitHub's 13 MB needs far less; a hostile document that would take more ends the thread
 * (the load fails as "the document reader's thread failed") instead of growing the Gateway's memory.
 */
const READ_WORKER_HEAP_MB = 1024;

/**
 * Documents up to this size are read on the calling thread: a worker's start (its TypeScript loader) costs more than
 * their read (about 20 ms of the loop per 256 KiB of JSON here), while GitHub's 13 MB took the loop a second.
 */
export const OPENAPI_OFF_LOOP_BYTES = 256 * 1024;

/** Operations or named schemas per part of the worker's answer: a part parses in a few milliseconds. */
export const READ_PART_ITEMS = 64;

/** A document read: its operations and its named schemas (in name order) with the notes about them. */
export interface ReadDocument {
  mapped: MappedDocument;
  named: Array<[string, JsonSchema]>;
  notes: string[];
}

/** UTF-8 bytes -> operations and named schemas, on this thread. Throws OpenApiDocumentError naming what is wrong. */
export function readDocumentBytes(bytes: Uint8Array, name: string, where: string, maxBytes: number): ReadDocument {
  if (bytes.byteLength > maxBytes) {
    throw new OpenApiDocumentError(`${where} is ${bytes.byteLength} bytes, larger than sources.maxDocumentBytes (${maxBytes}); raise that limit in the config or trim the document to the operations you need`);
  }
  const decoded = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  // a byte order mark is not JSON (a fetched document's text never had one: fetch drops it)
  const text = decoded.charCodeAt(0) === 0xfeff ? decoded.slice(1) : decoded;
  const doc = loadDocumentText(text, where, maxBytes);
  const schemas = new OpenApiSchemas(doc, name);
  try {
    schemas.nameComponents();
    const mapped = mapDocument(doc, schemas);
    schemas.release();
    return { mapped, named: schemas.namedSchemas(), notes: [...schemas.notes] };
  } catch (err) {
    if (err instanceof SchemaBoundsError) throw new OpenApiDocumentError(`${where}: ${err.message}`);
    throw err;
  }
}

/** What the worker answers (read-worker.mjs): the read as parts of UTF-8 JSON (encodeRead), or why it failed. */
export type ReadReply = { ok: true; parts: Uint8Array[] } | { ok: false; document: boolean; message: string };

/** One part of a read: a slice of its operations or named schemas, or (first) the rest of it. */
type ReadPart = { operations: MappedDocument['operations'] } | { named: ReadDocument['named'] } | { head: Omit<MappedDocument, 'operations'> & { notes: string[] } };

/** A read as parts of UTF-8 JSON, each READ_PART_ITEMS items at most (decodeRead puts it together again). */
export function encodeRead(read: ReadDocument): Uint8Array[] {
  const { operations, ...rest } = read.mapped;
  const parts: ReadPart[] = [{ head: { ...rest, notes: read.notes } }];
  for (let i = 0; i < operations.length; i += READ_PART_ITEMS) parts.push({ operations: operations.slice(i, i + READ_PART_ITEMS) });
  for (let i = 0; i < read.named.length; i += READ_PART_ITEMS) parts.push({ named: read.named.slice(i, i + READ_PART_ITEMS) });
  // each its own buffer (a small Buffer would be a slice of Node's shared pool, which cannot be moved to another thread)
  const encoder = new TextEncoder();
  return parts.map((part) => encoder.encode(JSON.stringify(part)));
}

/** encodeRead's parts -> the read, one part per turn of the event loop. */
export async function decodeRead(parts: readonly Uint8Array[]): Promise<ReadDocument> {
  const read: ReadDocument = { mapped: { operations: [], skipped: [] }, named: [], notes: [] };
  for (const bytes of parts) {
    // the worker runs this file's encodeRead: its parts are ReadParts
    const part = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as ReadPart;
    if ('head' in part) {
      const { notes, ...rest } = part.head;
      read.mapped = { ...rest, operations: read.mapped.operations };
      read.notes = notes;
    } else if ('operations' in part) read.mapped.operations.push(...part.operations);
    else read.named.push(...part.named);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return read;
}

/** The worker's job: the same read, its failure as data (a document error stays one across the thread). */
export function readForWorker(bytes: Uint8Array, name: string, where: string, maxBytes: number): ReadReply {
  try {
    return { ok: true, parts: encodeRead(readDocumentBytes(bytes, name, where, maxBytes)) };
  } catch (err) {
    return { ok: false, document: err instanceof OpenApiDocumentError, message: err instanceof Error ? err.message : String(err) };
  }
}

/** When a read leaves the calling thread, and how long it may take there. */
export interface OffLoopOptions {
  /** Documents this size or smaller are read on the calling thread (OPENAPI_OFF_LOOP_BYTES). */
  offLoopBytes?: number;
  timeoutMs?: number;
}

/**
 * UTF-8 bytes -> operations and named schemas, read in a worker thread when the document is bigger than
 * `offLoopBytes`. The bytes are moved to it (the caller's view is emptied) when they fill their own buffer, else
 * copied. Throws OpenApiDocumentError for the document's faults and when the read outlives `timeoutMs`, and an
 * Error naming the reader when its thread fails.
 */
export async function readDocumentOffLoop(bytes: Uint8Array, name: string, where: string, maxBytes: number, opts: OffLoopOptions = {}): Promise<ReadDocument> {
  // small, or refused at once for its size: no thread (and no big buffer moved)
  if (bytes.byteLength <= (opts.offLoopBytes ?? OPENAPI_OFF_LOOP_BYTES) || bytes.byteLength > maxBytes) return readDocumentBytes(bytes, name, where, maxBytes);
  return inWorker(bytes, name, where, maxBytes, opts.timeoutMs ?? OPENAPI_READ_TIMEOUT_MS);
}

function inWorker(bytes: Uint8Array, name: string, where: string, maxBytes: number, timeoutMs: number): Promise<ReadDocument> {
  const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer ? bytes : bytes.slice();
  return new Promise((resolve, reject) => {
    let worker: Worker;
    try {
      // no inherited flags: the entry registers its own TypeScript loader, in any runner (tsx, vitest, plain node)
      worker = new Worker(new URL('./read-worker.mjs', import.meta.url), { workerData: { bytes: own, name, where, maxBytes }, transferList: [own.buffer as ArrayBuffer], execArgv: [], resourceLimits: { maxOldGenerationSizeMb: READ_WORKER_HEAP_MB } });
    } catch (err) {
      reject(readerFailed(where, err));
      return;
    }
    let settled = false;
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      fn();
    };
    const timer = setTimeout(
      () => settle(() => reject(new OpenApiDocumentError(`${where} took longer than ${timeoutMs} ms to read; trim the document to the operations you need`))),
      timeoutMs,
    );
    worker.once('message', (reply: unknown) => settle(() => (isReply(reply) ? answer(reply, resolve, reject) : reject(readerFailed(where, 'it answered something else')))));
    worker.once('error', (err) => settle(() => reject(readerFailed(where, err))));
    worker.once('exit', (code) => settle(() => reject(readerFailed(where, `it exited with code ${code} before answering`))));
  });
}

/** The reader's thread failed (not the document): the source fails with this, and a reload tries again. */
function readerFailed(where: string, cause: unknown): Error {
  return new Error(`${where}: the document reader's thread failed (${cause instanceof Error ? cause.message : String(cause)}); reload the source to try again`);
}

function answer(reply: ReadReply, resolve: (read: ReadDocument) => void, reject: (err: Error) => void): void {
  if (reply.ok) decodeRead(reply.parts).then(resolve, reject);
  else if (reply.document) reject(new OpenApiDocumentError(reply.message));
  else reject(new Error(reply.message));
}

function isReply(value: unknown): value is ReadReply {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { ok?: unknown; parts?: unknown; message?: unknown };
  return v.ok === true ? Array.isArray(v.parts) && v.parts.every((p) => p instanceof Uint8Array) : v.ok === false && typeof v.message === 'string';
}
