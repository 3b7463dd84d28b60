// Types for engine.mjs (plain JS so worker threads load it as is): what the engine test drives.
export declare const TIMEOUT_MESSAGE: string;
export declare const OUT_OF_MEMORY_MESSAGE: string;

/** The part of the leg loop's leg (worker-runtime.mjs) the engine reads. */
export interface EngineLeg {
  limits: { memoryLimitBytes: number };
  control: Float64Array;
  shouldInterrupt(): boolean;
  onSync(op: string, payload: string | null): string | undefined;
}

export interface EmscriptenGuest {
  prepare(boot: unknown): void;
  start(body: string): void;
  drain(): void;
  deliver(replyJson: string): void;
  /** The guest's clock readings since the last take (JSON; '' when none). */
  takeClock(): string | null;
  park(): { continuationId: string; retainedBytesEstimate?: number; queuedJson: string | null };
  dispose(): void;
}

export interface EmscriptenEngine {
  readonly name: 'quickjs-emscripten';
  /** Runtimes made and freed, and teardown aborts the engine survived by dropping its module. */
  readonly counters: { modulesLoaded: number; runtimesCreated: number; runtimesDisposed: number; disposeAborts: number; liveRuntimes: number };
  warm(): Promise<unknown>;
  create(leg: EngineLeg): Promise<EmscriptenGuest>;
  resume(leg: EngineLeg, msg: { continuationId: string }): Promise<EmscriptenGuest>;
  release(continuationId: string): void;
}

export declare function createEmscriptenEngine(opts: {
  prelude: string;
  preludePrefix?: string | null;
  maxStackSizeBytes: number;
  wasmModule?: WebAssembly.Module;
}): EmscriptenEngine;
