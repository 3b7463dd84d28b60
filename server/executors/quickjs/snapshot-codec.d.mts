// Types for snapshot-codec.mjs (plain JS so worker threads load it as is).
export declare const SNAPSHOT_FORMAT_VERSION: number;
export declare class SnapshotFormatError extends Error {}
export interface RawSnapshot {
  memory: Uint8Array;
  stackPointer: number;
  runtimePtr: number;
  contextPtr: number;
}
/** The image every VM of this process starts from (module + prelude), named by baseImageHash. */
export interface BaseImage {
  memory: Uint8Array;
  hash: Uint8Array;
}
export declare function baseImageHash(moduleHash: Uint8Array, memory: Uint8Array): Uint8Array;
export declare function encodeSnapshot(snapshot: RawSnapshot, base: BaseImage): { bytes: Uint8Array; rawBytes: number; storedBytes: number };
export declare function decodeSnapshot(bytes: Uint8Array, base: BaseImage, memoryFor?: (rawBytes: number) => Uint8Array): RawSnapshot & { extensions: [] };
