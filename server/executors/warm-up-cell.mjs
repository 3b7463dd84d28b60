// The cell a warm-up runs: an output line, one nested call answered at once with null, a value. Every worker runs it
// inside itself before it reports ready (warm-up.mjs), and the QuickJS executor runs it again through the host's path
// (quickjs/executor.ts), so both warm the same code paths.
//
// Plain JavaScript on purpose: worker entry files load as they are under tsx, Vitest and Next.
/** @import { GuestBootConfig, LegLimits } from '../bridge/protocol.ts' */

export const WARM_UP_BODY = 'console.log("warm"); const r = await warm_up({}); return r === null ? 2 : 0;';
/** What the cell returns when its nested call was answered with null. */
export const WARM_UP_VALUE_JSON = '2';
/** @type {GuestBootConfig} */
const warmUpBoot = {
  maxPendingToolCalls: 16,
  tools: [Object.freeze({ callableName: 'warm_up', name: 'warm_up', description: '', source: 'core' })],
  mcp: [],
};
Object.freeze(warmUpBoot.tools);
Object.freeze(warmUpBoot.mcp);
/** Frozen all the way down (typed as the protocol's boot config, whose readers never write it). */
export const WARM_UP_BOOT = Object.freeze(warmUpBoot);
/**
 * The default budget's memory and snapshot limits (config defaults), so the warm-up takes the VMs real cells take.
 * @type {Readonly<LegLimits>}
 */
export const WARM_UP_LIMITS = Object.freeze({ memoryLimitBytes: 64 * 1024 * 1024, maxOutputBytes: 1024, maxSnapshotBytes: 8 * 1024 * 1024, maxPendingToolCalls: 16 });
