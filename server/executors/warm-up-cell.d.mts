// Types for warm-up-cell.mjs (plain JS so worker threads load it as is).
import type { GuestBootConfig, LegLimits } from '../bridge/protocol.ts';

export declare const WARM_UP_BODY: string;
export declare const WARM_UP_VALUE_JSON: string;
export declare const WARM_UP_BOOT: Readonly<GuestBootConfig>;
export declare const WARM_UP_LIMITS: Readonly<LegLimits>;
