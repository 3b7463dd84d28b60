// The heap watch over Node executor workers: enforces each cell's memoryLimitBytes from outside its thread, through the process's own inspector.
//
// Why not V8's limit alone: a worker's resourceLimits are V8 heap limits. When an allocation does not
// fit, V8 asks Node's near-heap-limit callback, which grants the worker 16 MiB more and terminates it;
// an allocation larger than that (a 24 MiB string flattened for JSON.stringify, an array's backing
// store growing by half, a Map's table doubling) still fails, and V8 then aborts the whole *process*
// (FatalProcessOutOfMemory): the CLI, the server and every other cell with it. So when this watch is
// available, a worker's V8 limit sits far above the cell's budget (HEAP_HEADROOM_MB, more than the
// largest single allocation V8 makes) and the budget is enforced here instead: while a leg is open,
// the supervisor asks the worker's inspector for its heap use (Runtime.getHeapUsage is served by a V8
// interrupt, so it answers even while the guest computes); a reading over the budget is checked again
// after a full collection (the worker's `__cm_live_heap_bytes`, evaluated in the same interrupt: the
// inspector's own collectGarbage waits for the worker to be idle, which a busy guest never is), and
// the worker is reported when its live heap is still over the budget. The worker's own V8 limit stays
// as the last line for growth faster than the watch can see. Only a guest that computes can allocate:
// a leg whose guest waits on tools (the worker's busySince reads 0) is not read at all.
//
// One inspector session per process, attached only to the workers registered here (others are
// detached as soon as they appear). Where the inspector is missing (a Node built without it) the watch
// is unavailable and the executor falls back to tight V8 limits.
import inspector from 'node:inspector';

/**
 * Heap a Node worker may take past its cell's budget before V8 itself stops it. The largest single
 * on-heap allocation V8 makes is about 1 GiB (a two-byte string at String::kMaxLength, a FixedArray at
 * its maximum length); below that margin such an allocation can abort the process. A limit is a
 * ceiling, not a reservation: a worker uses only what its cell allocates.
 */
export const HEAP_HEADROOM_MB = 1536;
/**
 * How often a running leg's heap is read. Short enough that a cell allocating at full speed (about
 * 1 GiB/s) is seen well inside the headroom; a reading is a small interrupt in the worker.
 */
export const HEAP_POLL_INTERVAL_MS = 20;
/**
 * Least time between two forced collections on one worker: a cell whose garbage sits above its budget
 * (V8 collects late when its limit is far away) pays at most one full GC per interval, not one per
 * reading. A bomb allocating at full speed gains a few hundred MiB at most in that time: the headroom.
 */
export const HEAP_COLLECT_MIN_INTERVAL_MS = 200;
/**
 * How long a reading may stay unanswered before the watch stops waiting for it and reads again. A worker
 * answers within milliseconds (an interrupt, even mid-loop); without this bound one lost reply (a message
 * sent while the worker's inspector was still starting) would leave its leg unwatched for good.
 */
export const HEAP_REPLY_TIMEOUT_MS = 5_000;

interface Watched {
  threadId: number;
  /** [0]: epoch ms since the worker's guest has been computing, 0 while it waits (written by the worker). */
  busySince?: Float64Array;
  /** Set while a leg runs on the worker. */
  leg?: WatchedLeg;
  sessionId?: string;
  /** Set by detach(): the worker is about to be terminated, and the inspector stays away from it. */
  detached?: boolean;
}

interface WatchedLeg {
  limitBytes: number;
  onExceeded: (usedBytes: number) => void;
  probing: boolean;
  /** When this leg's worker last collected garbage for a reading (ms since epoch). */
  collectedAt: number;
}

interface HeapUsage {
  usedSize: number;
}

interface Evaluated {
  result?: { value?: unknown };
}

export class HeapWatch {
  private readonly session: inspector.Session;
  private readonly workers = new Map<number, Watched>();
  private readonly replies = new Map<number, { resolve: (r: unknown) => void; reject: (e: Error) => void; sessionId: string }>();
  private nextRequest = 0;
  private timer: ReturnType<typeof setInterval> | undefined;
  private polls = 0;
  private probes = 0;

  /** Throws when the inspector cannot be used (see `heapWatch()`). */
  constructor() {
    this.session = new inspector.Session();
    this.session.connect();
    this.session.on('NodeWorker.attachedToWorker', (m) => this.onAttached(m.params.sessionId, inspectedThreadId(m.params.workerInfo)));
    this.session.on('NodeWorker.detachedFromWorker', (m) => this.onDetached(m.params.sessionId));
    this.session.on('NodeWorker.receivedMessageFromWorker', (m) => this.onReply(m.params.message));
    let failure: Error | null = null;
    // a same-thread session answers synchronously: failure is known before the constructor returns
    this.session.post('NodeWorker.enable', { waitForDebuggerOnStart: false }, (err) => (failure = err));
    if (failure) {
      this.session.disconnect();
      throw failure;
    }
  }

  /**
   * Call right after the worker is created (its thread id is known, the inspector attaches later).
   * `busySince` is the block the worker marks while its guest computes; without it every poll reads the heap.
   */
  register(threadId: number, busySince?: Float64Array): void {
    this.workers.set(threadId, { threadId, ...(busySince ? { busySince } : {}) });
  }

  /** Poll ticks and heap readings started so far, and watched workers the inspector reaches now (tests). */
  counts(): { polls: number; probes: number; attached: number } {
    let attached = 0;
    for (const w of this.workers.values()) if (w.sessionId) attached++;
    return { polls: this.polls, probes: this.probes, attached };
  }

  /**
   * Call before terminating a registered worker: ends its leg's watch, fails the readings in flight and
   * detaches the inspector from the thread. Node 20 can crash the whole process (a segfault or an abort,
   * about one termination in sixty in a stress loop) when a worker is terminated while an inspector
   * message to it is in flight; a detached worker is terminated safely.
   */
  async detach(threadId: number): Promise<void> {
    const w = this.workers.get(threadId);
    if (!w) return;
    w.leg = undefined;
    w.detached = true;
    this.schedule();
    const sessionId = w.sessionId;
    if (!sessionId) return;
    w.sessionId = undefined;
    this.dropReplies(sessionId);
    await new Promise<void>((resolve) => this.session.post('NodeWorker.detach', { sessionId }, () => resolve()));
  }

  unregister(threadId: number): void {
    const w = this.workers.get(threadId);
    this.workers.delete(threadId);
    if (w?.sessionId) this.dropReplies(w.sessionId);
    this.schedule();
  }

  /** Watch a leg on a registered worker until the returned function is called. */
  watch(threadId: number, limitBytes: number, onExceeded: (usedBytes: number) => void): () => void {
    const w = this.workers.get(threadId);
    if (!w) return () => undefined;
    const leg: WatchedLeg = { limitBytes, onExceeded, probing: false, collectedAt: 0 };
    w.leg = leg;
    this.schedule();
    return () => {
      if (w.leg === leg) w.leg = undefined;
      this.schedule();
    };
  }

  private schedule(): void {
    const active = [...this.workers.values()].some((w) => w.leg);
    if (active && !this.timer) {
      this.timer = setInterval(() => this.poll(), HEAP_POLL_INTERVAL_MS);
      // the watch never keeps a finished host process (a CLI command) alive
      this.timer.unref();
    } else if (!active && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private poll(): void {
    this.polls++;
    for (const w of this.workers.values()) {
      const leg = w.leg;
      const sessionId = w.sessionId;
      if (!leg || !sessionId || leg.probing) continue;
      // a guest parked on tools allocates nothing: no inspector round trip until it computes again
      if (w.busySince && w.busySince[0] === 0) continue;
      this.probes++;
      leg.probing = true;
      void this.probe(sessionId, leg)
        .then((used) => {
          if (used !== undefined && w.leg === leg) leg.onExceeded(used);
        })
        .catch(() => undefined)
        .finally(() => (leg.probing = false));
    }
  }

  /** The live heap in bytes when it is over the leg's budget after a full collection, else undefined. */
  private async probe(sessionId: string, leg: WatchedLeg): Promise<number | undefined> {
    const plain = (await this.request(sessionId, 'Runtime.getHeapUsage')) as HeapUsage;
    if (!(plain.usedSize > leg.limitBytes)) return undefined;
    if (Date.now() - leg.collectedAt < HEAP_COLLECT_MIN_INTERVAL_MS) return undefined;
    // garbage counts in a plain reading: only the heap that survives a collection is the cell's
    leg.collectedAt = Date.now();
    const live = (await this.request(sessionId, 'Runtime.evaluate', { expression: '__cm_live_heap_bytes()', returnByValue: true, silent: true })) as Evaluated;
    const bytes = live.result?.value;
    return typeof bytes === 'number' && bytes > leg.limitBytes ? bytes : undefined;
  }

  private request(sessionId: string, method: string, params?: object): Promise<unknown> {
    const id = ++this.nextRequest;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        if (this.replies.delete(id)) reject(new Error(`no reply to ${method} within ${HEAP_REPLY_TIMEOUT_MS} ms`));
      }, HEAP_REPLY_TIMEOUT_MS);
      timer.unref();
      const settle = <T>(fn: (v: T) => void) => (v: T) => {
        clearTimeout(timer);
        fn(v);
      };
      this.replies.set(id, { resolve: settle(resolve), reject: settle(reject), sessionId });
      this.session.post('NodeWorker.sendMessageToWorker', { sessionId, message: JSON.stringify({ id, method, params }) }, (err) => {
        if (!err || !this.replies.delete(id)) return;
        clearTimeout(timer);
        reject(err);
      });
    });
  }

  private onAttached(sessionId: string, threadId: number): void {
    const w = this.workers.get(threadId);
    // not a Node executor worker (the QuickJS pool, grep, typecheck): nothing to watch there
    if (!w || w.detached) return this.session.post('NodeWorker.detach', { sessionId }, () => undefined);
    w.sessionId = sessionId;
  }

  private onDetached(sessionId: string): void {
    for (const w of this.workers.values()) if (w.sessionId === sessionId) w.sessionId = undefined;
    this.dropReplies(sessionId);
  }

  private dropReplies(sessionId: string): void {
    for (const [id, r] of this.replies) {
      if (r.sessionId !== sessionId) continue;
      this.replies.delete(id);
      r.reject(new Error('the worker is gone'));
    }
  }

  private onReply(message: string): void {
    let reply: { id?: unknown; result?: unknown; error?: { message?: unknown } };
    try {
      reply = JSON.parse(message) as typeof reply;
    } catch {
      return;
    }
    if (typeof reply.id !== 'number') return;
    const waiting = this.replies.get(reply.id);
    if (!waiting) return;
    this.replies.delete(reply.id);
    if (reply.error) waiting.reject(new Error(String(reply.error.message)));
    else waiting.resolve(reply.result);
  }
}

/**
 * The thread id of a worker the inspector attached to. Its `workerId` is the inspector's own attach
 * counter, which matches `threadId` only while workers start and attach in the same order; under load
 * they do not, and the watch would read (and terminate for) the wrong worker. Node titles a worker
 * `[worker <threadId>] <name>`; that is the id to trust.
 */
export function inspectedThreadId(info: { workerId: string; title: string }): number {
  const titled = /^\[worker (\d+)\]/.exec(info.title);
  return titled ? Number(titled[1]) : Number.NaN;
}

let shared: HeapWatch | null | undefined;

/** The process's heap watch, or null where the inspector is unavailable. */
export function heapWatch(): HeapWatch | null {
  if (shared === undefined) {
    try {
      shared = new HeapWatch();
    } catch {
      shared = null;
    }
  }
  return shared;
}
