// Types for is-record.mjs (plain JS so worker threads load it as is).
/** Whether `value` is an object that is neither null nor an array (what JSON calls an object). */
export declare function isRecord(value: unknown): value is Record<string, unknown>;
