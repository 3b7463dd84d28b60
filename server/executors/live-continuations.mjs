// The parked guests of one live-continuation worker (node, quickjs-emscripten), by continuation id: a park keeps one, `continue` takes it back, release disposes it.
//
// Plain JavaScript on purpose: worker entry files load as they are under tsx, Vitest and Next.
/** @import { EngineLeg, LiveGuest } from './worker-types.ts' */
import { LegFailure } from './worker-runtime.mjs';

/**
 * @template {EngineLeg} L the leg this engine's guests read
 * @template {LiveGuest<L>} G
 * @param {string} prefix what this engine's continuation ids start with
 */
export function liveContinuations(prefix) {
  /** @type {Map<string, G>} */
  const parked = new Map();
  let next = 0;
  return {
    /** Keep a parked guest; returns the continuation id its run resumes with. @param {G} guest */
    keep(guest) {
      const id = `${prefix}${++next}`;
      parked.set(id, guest);
      return id;
    },
    /** A guest disposed while parked is not kept any more. @param {string} id */
    forget(id) {
      parked.delete(id);
    },
    /**
     * The engine's `resume`: the parked guest, attached to the leg that continues it (once). A live engine's legs
     * go on with `continue` (a snapshot's `resume` names no continuation, and finds none).
     * @param {L} leg @param {{ t?: string, continuationId?: string }} msg the leg message (a test may pass just the id)
     * @returns {Promise<G>}
     */
    async resume(leg, msg) {
      const guest = msg.continuationId === undefined ? undefined : parked.get(msg.continuationId);
      if (!guest) throw new LegFailure('invalid_input', 'code mode run is unavailable or expired.');
      parked.delete(/** @type {string} */ (msg.continuationId));
      guest.attach(leg);
      return guest;
    },
    /** The engine's `release`: the run will never resume, its guest goes. @param {string} continuationId */
    release(continuationId) {
      parked.get(continuationId)?.dispose();
    },
  };
}
