// Types for snapshot-codec.mjs (plain JS so worker threads load it as is).
export declare const SNAPSHOT_FORMAT_VERSION: number;
export declare class SnapshotFormatError extends Error {}
export interface RawSnapshot {
  memory: Uint8Array;
  stackPointer: number;
  runtimePtr: number;
  contextPtr: number;
}
export declare function encodeSnapshot(snapshot: RawSnapshot, moduleHash: Uint8Array): { bytes: Uint8Array; rawBytes: number; storedBytes: number };
export declare function decodeSnapshot(bytes: Uint8Array, moduleHash: Uint8Array): RawSnapshot & { extensions: [] };
