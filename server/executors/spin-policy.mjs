// When polling for the other side's next message pays (reply-spin.ts): an adaptive rule each poller keeps for itself.
//
// Polling wins when the other side answers within the window: a wake of an idle vCPU is saved for a few µs of
// looking. It loses when the answers come late or not at all: each miss burns a whole window of CPU, and on a host
// that takes CPU back from this VM (steal time) a thread that polls while the one it waits for is descheduled only
// makes both slower. Measured on this machine in such a state: 15-25% of the Gateway's polls hit, and a cell of
// 1000 sequential calls took 2x as long with polling as without. So each poller keeps a moving average of its hit
// rate (1/8 per poll): under MIN_HIT_RATE it stops polling for a number of chances that doubles each time the rate
// falls again (16 up to 1024), then tries again from a neutral average; a hit rate back over RECOVERED_HIT_RATE
// resets the back-off. On a quiet host ~94% of polls hit and polling never stops.
//
// Plain JavaScript on purpose: worker entry files load as they are under tsx, Vitest and Next.

/**
 * Polling follows a frontier of at most this many calls, both ways: the host's side of a frontier grows with its
 * calls (tens of µs each), and so does the guest's after a message of that many replies (it resolves each and runs
 * on), so neither answers within the window after a wide Promise.all, and polling for it would only burn CPU (and
 * its misses would make the poller back off from the narrow frontiers that follow).
 */
export const MAX_POLLED_FRONTIER = 4;

/** Int32 slots of the buffer all pollers of a process share (reply-spin.ts makes it): how many workers poll now, and whether the steal guard allows polling (1) or not (0). */
export const SPIN_POLLERS = 0;
export const SPIN_ALLOWED = 1;

/** Under this moving hit rate, a poller stops polling for a while. */
export const MIN_HIT_RATE = 0.5;
/** Over this one, the back-off starts again from its shortest. */
export const RECOVERED_HIT_RATE = 0.8;
/** The moving average after a back-off: a few misses in a row end the trial. */
export const TRIAL_HIT_RATE = 0.75;
export const MIN_BACKOFF = 16;
export const MAX_BACKOFF = 1024;

export class SpinPolicy {
  constructor() {
    this.rate = 1;
    this.backoff = MIN_BACKOFF;
    this.skipLeft = 0;
  }

  /** Whether to poll at this chance (false while backing off; each call uses one chance). */
  shouldPoll() {
    if (this.skipLeft > 0) {
      this.skipLeft--;
      return false;
    }
    return true;
  }

  /**
   * One poll: looks at the port (`receive`) until a message comes or `now()` reaches `until`, and counts what it found.
   * @param {() => { message: unknown } | undefined} receive @param {() => number} now @param {number} until
   */
  poll(receive, now, until) {
    const got = waitForMessage(receive, now, until);
    this.record(got !== undefined);
    return got;
  }

  /** What one poll found: the message within the window (`hit`) or nothing. @param {boolean} hit */
  record(hit) {
    this.rate += ((hit ? 1 : 0) - this.rate) / 8;
    if (this.rate < MIN_HIT_RATE) {
      this.skipLeft = this.backoff;
      this.backoff = Math.min(this.backoff * 2, MAX_BACKOFF);
      this.rate = TRIAL_HIT_RATE;
    } else if (this.rate > RECOVERED_HIT_RATE) {
      this.backoff = MIN_BACKOFF;
    }
  }
}

/**
 * The busy wait itself, a function of its own so a profile tells the wait from handling what it took (bench/breakdown.ts).
 * @param {() => { message: unknown } | undefined} receive @param {() => number} now @param {number} until
 * @returns {{ message: unknown } | undefined}
 */
export function waitForMessage(receive, now, until) {
  let got;
  while (!(got = receive()) && now() < until);
  return got;
}
