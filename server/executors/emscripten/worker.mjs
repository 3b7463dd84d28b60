// quickjs-emscripten executor worker: one cell at a time in a fresh QuickJS runtime; a parked cell stays live in this worker.
//
// The engine (engine.mjs) owns the WASM module and the cell's runtime; this entry loads it, warms it
// (module instantiated, one runtime through the prelude) and hands it to the shared leg loop. The guest
// has no ambient file system, network, process, timers or modules: a bare QuickJS context plus the
// guest controller's globals.
//
// Plain JavaScript on purpose: worker entry files load as they are under tsx, Vitest and Next.
/** @import { EngineLeg, ExecutorWorkerData } from '../worker-types.ts' */
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { CONTROL_SLOTS } from '../../bridge/leg-control.mjs';
import { runWorker } from '../worker-port.mjs';
import { createEmscriptenEngine } from './engine.mjs';

const data = /** @type {ExecutorWorkerData | null | undefined} */ (workerData);
const prelude = readFileSync(new URL('../../guest/prelude.js', import.meta.url), 'utf8');
const maxStackSizeBytes = data?.maxStackSizeBytes;
if (maxStackSizeBytes === undefined || !(maxStackSizeBytes > 0)) throw new Error('quickjs-emscripten executor worker: workerData.maxStackSizeBytes must be a positive number of bytes');

const engine = createEmscriptenEngine({
  prelude,
  // test hook: guest code that runs before the prelude (a cell that holds the raw host primitive)
  preludePrefix: typeof data?.preludePrefix === 'string' ? data.preludePrefix : null,
  maxStackSizeBytes,
  // the executor compiles the module once per process and shares it; the engine compiles it when run alone
  wasmModule: data?.wasmModule instanceof WebAssembly.Module ? data.wasmModule : undefined,
});

// Warm this worker: the module instantiates now, and one runtime through the prelude warms the
// engine's hot paths, so the first cell costs what a warm one does.
await engine.warm();
{
  /** @type {EngineLeg} */
  const leg = { limits: { memoryLimitBytes: 64 * 1024 * 1024 }, control: new Float64Array(CONTROL_SLOTS), shouldInterrupt: () => false, onSync: () => undefined };
  try {
    const guest = await engine.create(leg);
    try {
      guest.prepare({ maxPendingToolCalls: 1, tools: [], mcp: [] });
      // a short hot loop: V8 compiles WASM functions lazily and the interpreter loop only tiers up on
      // a later entry, so the first cell would otherwise run on the baseline compiler
      guest.start('let n = 0; for (let i = 0; i < 20000; i++) n += [i].length; return n');
      guest.drain();
    } catch {
      // warming is best effort: a failure here shows up, with its reason, in the first real cell
    } finally {
      guest.dispose();
    }
  } catch {
    // same
  }
}
runWorker(engine);
parentPort?.postMessage({ t: 'ready', engine: 'quickjs-emscripten' });
