// Types for protocol-check.mjs (plain JS so worker threads load it as is).
import type { BridgeRequest, ClockReadings, CodeModeOutput, SettledOutcome, WorkerToHost } from './protocol.ts';

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

export declare const MAX_REQUEST_ID_CHARS: number;
export declare const MAX_NAME_CHARS: number;
export declare const MAX_MESSAGE_CHARS: number;
export declare const MAX_QUERY_CHARS: number;
export declare const MAX_CANCELS_PER_FRONTIER: number;
export declare const MAX_CLOCK_RUNS: number;

export declare function parseGuestJson(text: unknown, what: string): Checked<unknown>;
export declare function checkJsonText(text: unknown, what: string): Checked<string>;
export declare function checkBridgeRequest(v: unknown): Checked<BridgeRequest>;
export declare function checkSettledOutcome(v: unknown): Checked<SettledOutcome>;
export declare function checkOutputLine(v: unknown): Checked<CodeModeOutput>;
export declare function checkClockReadings(v: unknown): Checked<ClockReadings>;
/** On failure, `legId` names the leg the message claimed (the host fails that leg); absent: the message is dropped. */
export declare function checkWorkerMessage(v: unknown): { ok: true; value: WorkerToHost } | { ok: false; error: string; legId?: string };
