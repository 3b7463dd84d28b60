// Recycled WASM instances (instances.mjs): the premise (the module keeps no state outside its memory and
// one global), reuse only for restores that fit, nothing of the previous VM visible, bounded idle set.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { QuickJS } from 'quickjs-wasi';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InstanceRecycler, MAX_IDLE_INSTANCES, MAX_RECYCLED_MEMORY_BYTES } from './instances.mjs';

const wasmBytes = readFileSync(createRequire(import.meta.url).resolve('quickjs-wasi/quickjs.wasm'));
const wasm = new WebAssembly.Module(wasmBytes);

/** The module's globals as [value type, mutable] from its global section (the binary format, section 6). */
function globalsOf(bytes: Uint8Array): Array<{ type: number; mutable: boolean }> {
  let p = 8;
  const leb = () => {
    let r = 0;
    let shift = 0;
    let b: number;
    do {
      b = bytes[p++]!;
      r += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    return r;
  };
  while (p < bytes.length) {
    const id = bytes[p++]!;
    const len = leb();
    const end = p + len;
    if (id === 6) {
      const out: Array<{ type: number; mutable: boolean }> = [];
      for (let n = leb(); n > 0; n--) {
        const type = bytes[p++]!;
        const mutable = bytes[p++] === 1;
        while (bytes[p] !== 0x0b) p++;
        p++;
        out.push({ type, mutable });
      }
      return out;
    }
    p = end;
  }
  return [];
}

/** Imports for a bare instance (never called: the tests only touch memory). */
function imports(calls: string[] = []): WebAssembly.Imports {
  const out: Record<string, Record<string, () => number>> = {};
  for (const i of WebAssembly.Module.imports(wasm)) (out[i.module] ??= {})[i.name] = () => (calls.push(i.name), 0);
  return out;
}

const memoryOf = (instance: WebAssembly.Instance) => instance.exports.memory as WebAssembly.Memory;

describe('recycled WASM instances', () => {
  let recycler: InstanceRecycler;
  let uninstall: () => void;
  beforeEach(() => {
    recycler = new InstanceRecycler();
    uninstall = recycler.install();
  });
  afterEach(() => uninstall());

  it('the premise: the QuickJS module has one global, mutable and exported as __stack_pointer, which a restore sets', () => {
    expect(globalsOf(wasmBytes)).toEqual([{ type: 0x7f, mutable: true }]);
    expect(WebAssembly.Module.exports(wasm).filter((e) => e.kind === 'global').map((e) => e.name)).toEqual(['__stack_pointer']);
  });

  it('on a restore: reuses a released instance, and the restored VM sees nothing of the VM before it', async () => {
    const a = await QuickJS.create({ wasm });
    const clean = a.snapshot();
    a.evalCode('globalThis.secret = "left behind by the previous cell"').dispose();
    const dirty = a.snapshot();
    const instance = (a as unknown as { instance: WebAssembly.Instance }).instance;
    a.dispose();
    recycler.release(instance);

    const b = await QuickJS.restore(clean, { wasm, wasi: recycler.restoreOptions(clean.memory.byteLength) });
    expect((b as unknown as { instance: WebAssembly.Instance }).instance).toBe(instance);
    expect(recycler.stats.reused).toBe(1);
    expect(b.evalCode('typeof globalThis.secret').toString()).toBe('undefined');
    expect(b.evalCode('[1, 2, 3].map((x) => x * 2).join()').toString()).toBe('2,4,6');
    const released = (b as unknown as { instance: WebAssembly.Instance }).instance;
    b.dispose();
    recycler.release(released);

    const c = await QuickJS.restore(dirty, { wasm, wasi: recycler.restoreOptions(dirty.memory.byteLength) });
    expect(recycler.stats.reused).toBe(2);
    expect(c.evalCode('globalThis.secret').toString()).toBe('left behind by the previous cell');
    c.dispose();
  });

  it('on a reused instance: the host callbacks are the new VM\'s, never the disposed one\'s', async () => {
    const a = await QuickJS.create({ wasm });
    const seen: string[] = [];
    a.newFunction('probe', () => (seen.push('old'), a.undefined)).consume((fn) => a.setProp(a.global, 'probe', fn));
    const snap = a.snapshot();
    const instance = (a as unknown as { instance: WebAssembly.Instance }).instance;
    a.dispose();
    recycler.release(instance);
    const b = await QuickJS.restore(snap, { wasm, wasi: recycler.restoreOptions(snap.memory.byteLength) });
    b.registerHostCallback('probe', () => (seen.push('new'), b.undefined));
    b.evalCode('probe(); probe()').dispose();
    expect(seen).toEqual(['new', 'new']);
    b.dispose();
  });

  it('on a fresh create: never reuses an instance (the C runtime needs a fresh memory)', async () => {
    recycler.release(recycler.instantiate(wasm, imports()));
    const vm = await QuickJS.create({ wasm });
    expect(recycler.stats).toMatchObject({ created: 2, reused: 0 });
    expect(vm.evalCode('40 + 2').toString()).toBe('42');
    vm.dispose();
  });

  it('on a snapshot smaller than every idle memory: makes a fresh instance (a memory cannot shrink)', () => {
    const big = recycler.instantiate(wasm, imports());
    memoryOf(big).grow(8);
    recycler.release(big);
    const bytes = memoryOf(big).buffer.byteLength;
    recycler.restoreOptions(bytes - 65536)();
    expect(recycler.instantiate(wasm, imports())).not.toBe(big);
    recycler.restoreOptions(bytes)();
    const reused = recycler.instantiate(wasm, imports());
    expect(reused).toBe(big);
    expect(new Uint8Array(memoryOf(reused).buffer).every((b) => b === 0)).toBe(true);
  });

  it(`on more than ${MAX_IDLE_INSTANCES} released: keeps the smallest ${MAX_IDLE_INSTANCES}, and drops any memory over ${MAX_RECYCLED_MEMORY_BYTES} bytes`, () => {
    const made = Array.from({ length: MAX_IDLE_INSTANCES + 1 }, (_, i) => {
      const instance = recycler.instantiate(wasm, imports());
      memoryOf(instance).grow(MAX_IDLE_INSTANCES - i);
      return instance;
    });
    for (const instance of made) recycler.release(instance);
    expect(recycler.idle.map((e) => e.instance)).not.toContain(made[0]);
    expect(recycler.idle).toHaveLength(MAX_IDLE_INSTANCES);
    const huge = recycler.instantiate(wasm, imports());
    memoryOf(huge).grow(Math.ceil(MAX_RECYCLED_MEMORY_BYTES / 65536));
    recycler.release(huge);
    expect(recycler.idle.map((e) => e.instance)).not.toContain(huge);
    expect(recycler.stats.dropped).toBe(2);
  });

  it('once installed: a compiled module that imports nothing instantiates without an imports object, as with the original', async () => {
    // the smallest module: the magic number and version, no sections
    const empty = new WebAssembly.Module(new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]));
    await expect(WebAssembly.instantiate(empty)).resolves.toBeInstanceOf(WebAssembly.Instance);
  });

  it('on a released instance called again (a stray handle of its old VM): fails, and reaches no VM', () => {
    const calls: string[] = [];
    const instance = recycler.instantiate(wasm, imports(calls));
    recycler.release(instance);
    const exports = instance.exports as Record<string, (...args: number[]) => number>;
    expect(() => exports._initialize!()).toThrow();
    expect(calls).toEqual([]);
  });
});
