// Types for instances.mjs (plain JS so worker threads load it as is).
export declare const MAX_IDLE_INSTANCES: number;
export declare const MAX_RECYCLED_MEMORY_BYTES: number;
export declare class InstanceRecycler {
  readonly idle: { instance: WebAssembly.Instance }[];
  readonly stats: { created: number; reused: number; released: number; dropped: number };
  install(): () => void;
  restoreOptions(memoryBytes: number): () => undefined;
  instantiate(mod: WebAssembly.Module, imports: WebAssembly.Imports): WebAssembly.Instance;
  release(instance: WebAssembly.Instance | null | undefined): void;
}
