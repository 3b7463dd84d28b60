// Tests for reading a document in a worker thread: the same operations, schemas and errors as on the calling thread.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../testing.ts';
import { OpenApiDocumentError } from './document.ts';
import { decodeRead, encodeRead, READ_PART_ITEMS, readDocumentBytes, readDocumentOffLoop } from './read.ts';

const MAX = 32 * 1024 * 1024;
const utf8 = (text: string) => new TextEncoder().encode(text);
const INVENTORY = readFileSync(join(REPO_ROOT, 'demo/openapi/inventory.yaml'), 'utf8');

/** A JSON document with `n` operations and `n` named schemas: more than one part of each in the worker's answer. */
function wideDocument(n: number): string {
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) {
    schemas[`thing-${i}`] = { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string', nullable: true }, note: { type: 'string', description: 'é ✓ 日本' } } };
    paths[`/things/${i}/{id}`] = {
      get: {
        operationId: `getThing${i}`,
        tags: ['things'],
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: `#/components/schemas/thing-${i}` } } } } },
      },
    };
  }
  return JSON.stringify({ openapi: '3.0.3', info: { title: 'Wide', version: '1' }, servers: [{ url: 'http://127.0.0.1:9' }], paths, components: { schemas } });
}

describe('reading an OpenAPI document off the event loop', () => {
  it('in a worker: the operations, named schemas, notes, title and server of the read on this thread (YAML and JSON, several parts)', async () => {
    const wide = wideDocument(READ_PART_ITEMS * 2 + 5);
    for (const text of [INVENTORY, wide]) {
      const here = readDocumentBytes(utf8(text), 'inv', 'doc', MAX);
      const there = await readDocumentOffLoop(utf8(text), 'inv', 'doc', MAX, { offLoopBytes: 0 });
      expect(JSON.parse(JSON.stringify(there))).toEqual(JSON.parse(JSON.stringify(here)));
      expect(there.mapped.operations.length).toBe(here.mapped.operations.length);
    }
    expect((await readDocumentOffLoop(utf8(wide), 'inv', 'doc', MAX, { offLoopBytes: 0 })).named.length).toBe(READ_PART_ITEMS * 2 + 5);
  });

  it('while the worker reads: the event loop turns (a big document no longer holds it)', async () => {
    let turned = false;
    setImmediate(() => (turned = true));
    const read = readDocumentOffLoop(utf8(wideDocument(40)), 'w', 'doc', MAX, { offLoopBytes: 0 });
    await read;
    expect(turned).toBe(true);
    // the control: a document read on this thread settles before the loop turns
    let inline = false;
    setImmediate(() => (inline = true));
    await readDocumentOffLoop(utf8(INVENTORY), 'w', 'doc', MAX);
    expect(inline).toBe(false);
  });

  it('on a bad document in the worker: the same OpenApiDocumentError, naming what is wrong; over the size limit: refused without a worker', async () => {
    for (const text of ['{ "openapi": ', '{"swagger": "2.0", "paths": {}}', 'openapi: 3.0.0\npaths: [1]']) {
      const here = (() => {
        try {
          readDocumentBytes(utf8(text), 'bad', 'doc', MAX);
        } catch (err) {
          return err;
        }
      })();
      expect(here).toBeInstanceOf(OpenApiDocumentError);
      const there = await readDocumentOffLoop(utf8(text), 'bad', 'doc', MAX, { offLoopBytes: 0 }).catch((err: unknown) => err);
      expect(there).toBeInstanceOf(OpenApiDocumentError);
      expect((there as Error).message).toBe((here as Error).message);
    }
    await expect(readDocumentOffLoop(utf8(INVENTORY), 'big', 'doc', 10, { offLoopBytes: 0 })).rejects.toThrow(/larger than sources.maxDocumentBytes \(10\)/);
  });

  it('a leading byte order mark is dropped, as fetch drops it', async () => {
    const here = readDocumentBytes(utf8(`\uFEFF${wideDocument(2)}`), 'bom', 'doc', MAX);
    expect(here.mapped.operations.map((op) => op.name)).toEqual(['getThing0', 'getThing1']);
  });

  it('encodeRead and decodeRead: parts of at most READ_PART_ITEMS items, put together in order', async () => {
    const read = readDocumentBytes(utf8(wideDocument(READ_PART_ITEMS + 1)), 'p', 'doc', MAX);
    const parts = encodeRead(read);
    expect(parts.length).toBe(1 + 2 + 2);
    for (const part of parts) expect(part.byteOffset === 0 && part.byteLength === part.buffer.byteLength).toBe(true);
    expect(await decodeRead(parts)).toEqual(JSON.parse(JSON.stringify(read)));
  });
});
