// A leg's shared control block: the slots of the Float64Array over its SharedArrayBuffer, which the host
// writes and the worker's interrupt check reads (so a guest that never yields can still be stopped), and
// the message a leg ends with when its abort slot is set.
//
// Plain JavaScript on purpose: worker entry files import it as it is (tsc reads the types from the JSDoc).

/** Epoch ms past which the guest is interrupted; Infinity until the VM is ready or while an approval pauses the budget. */
export const CONTROL_DEADLINE = 0;
/** Non-zero once the host aborted the leg. */
export const CONTROL_ABORT = 1;
/** The budget (ms) the leg's guest gets once its VM is ready; the worker sets the deadline from it when it opens the leg. */
export const CONTROL_BUDGET = 2;
/**
 * Non-zero once the worker saw its guest's memory grow past the cell's limit where it could not stop it yet
 * (quickjs-emscripten: a WASM memory growth inside a long native call): a supervisor that has to terminate the stuck
 * thread at its deadline reports memory_limit_exceeded, the limit the guest broke, rather than timeout.
 */
export const CONTROL_OVER_MEMORY = 3;
/** Slots in the control block. */
export const CONTROL_SLOTS = 4;

/** What an aborted run's result says (a reason may follow after a colon). */
export const RUN_ABORTED_MESSAGE = 'code mode run was aborted';
