// Tests for the declaration files pack: what a leg's worker answers API.list / API.read from.
import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../catalog/build.ts';
import type { ToolDefinition } from '../tools/types.ts';
import { declarationFilesReader, NO_DECLARATION_FILES, packDeclarationFiles, type DeclarationFiles } from './declaration-files.mjs';

const tools: ToolDefinition[] = [
  { name: 'web_search', source: 'core', description: 'Search the web «quickly» — 🔎', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } },
  { name: 'read', source: 'core', description: 'Read a file.', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } },
  { name: 'echo', source: 'mcp', owner: 'demo-server', description: 'Echo the text back.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
];

describe('packDeclarationFiles and declarationFilesReader', () => {
  it("on a catalog's files: every file reads back exactly (multi-byte text included), and list gives the sorted paths", () => {
    const catalog = buildCatalog(tools);
    const reader = declarationFilesReader(packDeclarationFiles(catalog.files));
    const paths = [...catalog.files.keys()].sort();
    expect(reader.list('')).toEqual(paths);
    for (const [path, text] of catalog.files) expect(reader.read(path)).toBe(text);
    expect(reader.read('tools/web_search.d.ts')).toContain('«quickly» — 🔎');
  });

  it('on a prefix: lists only the paths that start with it, in order', () => {
    const reader = declarationFilesReader(packDeclarationFiles(new Map([['tools/b.d.ts', 'b'], ['mcp/index.d.ts', 'i'], ['tools/a.d.ts', 'a'], ['results.d.ts', 'r']])));
    expect(reader.list('tools/')).toEqual(['tools/a.d.ts', 'tools/b.d.ts']);
    expect(reader.list('mcp')).toEqual(['mcp/index.d.ts']);
    expect(reader.list('nothing/')).toEqual([]);
  });

  it('on a path the pack does not hold (or one named like an Object.prototype member): undefined', () => {
    const reader = declarationFilesReader(packDeclarationFiles(new Map([['results.d.ts', 'r']])));
    for (const path of ['tools/x.d.ts', '', 'constructor', '__proto__', 'toString']) expect(reader.read(path)).toBeUndefined();
  });

  it('on an empty file and on no files at all: reads the empty text, and lists nothing', () => {
    expect(declarationFilesReader(packDeclarationFiles(new Map([['empty.d.ts', '']]))).read('empty.d.ts')).toBe('');
    expect(declarationFilesReader(NO_DECLARATION_FILES).list('')).toEqual([]);
  });

  it('on something that is not a pack (no buffer, a plain object, a truncated or garbled buffer): reads as no files, never throws', () => {
    const good = packDeclarationFiles(new Map([['a.d.ts', 'aaaa']]));
    const truncated = new SharedArrayBuffer(8);
    new Uint8Array(truncated).set(new Uint8Array(good.buffer).subarray(0, 8));
    const garbled = new SharedArrayBuffer(good.buffer.byteLength);
    new Uint8Array(garbled).set(new Uint8Array(good.buffer));
    new Uint8Array(garbled)[5] = 0x7b; // the index is no longer JSON
    const notPacks = [undefined, {}, { buffer: new ArrayBuffer(16) }, { buffer: truncated }, { buffer: garbled }] as unknown as DeclarationFiles[];
    for (const pack of notPacks) {
      const reader = declarationFilesReader(pack);
      expect(reader.list('')).toEqual([]);
      expect(reader.read('a.d.ts')).toBeUndefined();
    }
  });

  it('on an index entry pointing past the buffer: that file is left out, the others read', () => {
    const pack = packDeclarationFiles(new Map([['a.d.ts', 'aaaa'], ['b.d.ts', 'bbbb']]));
    const bytes = Buffer.from(pack.buffer);
    const indexBytes = bytes.readUInt32LE(0);
    const index = JSON.parse(bytes.toString('utf8', 4, 4 + indexBytes)) as unknown[];
    expect(index).toEqual(['a.d.ts', 0, 4, 'b.d.ts', 4, 4]);
    // same length, so the layout holds: b's length now runs past the end
    bytes.write(JSON.stringify(['a.d.ts', 0, 4, 'b.d.ts', 4, 9]), 4, 'utf8');
    const reader = declarationFilesReader(pack);
    expect(reader.read('a.d.ts')).toBe('aaaa');
    expect(reader.read('b.d.ts')).toBeUndefined();
  });
});
