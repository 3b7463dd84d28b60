// Types for spin-policy.mjs (plain JS so worker threads load it as is).
export declare const MAX_POLLED_FRONTIER: number;
export declare const SPIN_POLLERS: 0;
export declare const SPIN_ALLOWED: 1;
export declare const MIN_HIT_RATE: number;
export declare const RECOVERED_HIT_RATE: number;
export declare const TRIAL_HIT_RATE: number;
export declare const MIN_BACKOFF: number;
export declare const MAX_BACKOFF: number;
export declare class SpinPolicy {
  rate: number;
  backoff: number;
  skipLeft: number;
  shouldPoll(): boolean;
  poll(receive: () => { message: unknown } | undefined, now: () => number, until: number): { message: unknown } | undefined;
  record(hit: boolean): void;
}
export declare function waitForMessage(receive: () => { message: unknown } | undefined, now: () => number, until: number): { message: unknown } | undefined;
