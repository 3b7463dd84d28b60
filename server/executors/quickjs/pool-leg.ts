// One leg of the QuickJS pool as the host holds it across the workers it runs on: what stays with the leg (its
// control block, opening message, the messages waiting for a worker, the counts a worker needs back) and its phase.
//
// Phases, one variant each, carrying only that phase's data:
//   queued         waits for a place: a new leg, or one resuming from its pressure checkpoint (`first` is that resume)
//   placed         on a worker that is not ready yet: its opening message goes once it is
//   opening        its opening message went: later messages go straight to the worker; the VM is not ready yet
//   open           its VM runs on the worker
//   checkpointing  a pressure checkpoint was asked of the worker: messages wait in the backlog for its answer
//   checkpointed   off every worker: its checkpoint resumes it, or is its continuation if it parks first
//   ended          its outcome went to the run
// pool.ts decides when a leg moves (placement, its outcome, pressure) and tells it here; pressure.ts picks which
// leg to checkpoint. The leg keeps one control block for its whole life, so the run's deadline and abort flag
// follow the VM; its requests stay with the run (host work, never replayed).
import type { DeclarationFiles } from '../../bridge/declaration-files.mjs';
import type { BridgeRequest, CodeModeOutput, HostToWorker, LegLimits, SettledOutcome, WorkerToHost } from '../../bridge/protocol.ts';
import { CONTROL_BUDGET } from '../../bridge/leg-control.mjs';
import type { LegHandlers, LegOutcome } from '../types.ts';
import type { PoolWorker } from './pool-worker.ts';
import { MAX_POLLED_FRONTIER } from '../spin-policy.mjs';

/** A VM checkpointed by pool pressure: what resumes it, or what the leg parks with if its budget ends first. */
export interface PressureCheckpoint {
  snapshot: Uint8Array;
  rawBytes?: number;
  storedBytes?: number;
  takeMs?: number;
  settled?: SettledOutcome;
  queued: BridgeRequest[];
}

export type LegPhase =
  | { name: 'queued'; reopen: boolean }
  | { name: 'placed'; worker: PoolWorker; reopen: boolean }
  /** `reopen`: the worker restores a pressure checkpoint (its `opened` is a pressure resume, not the leg's start). `parkSent`: a park went too. */
  | { name: 'opening'; worker: PoolWorker; reopen: boolean; parkSent: boolean }
  /** `declined`: the VM declined a checkpoint, `busy` until the guest sends new host work, `over-limit` (its snapshot is over maxSnapshotBytes) for good. */
  | { name: 'open'; worker: PoolWorker; parkSent: boolean; declined?: 'busy' | 'over-limit' }
  | { name: 'checkpointing'; worker: PoolWorker }
  | { name: 'checkpointed'; checkpoint: PressureCheckpoint }
  | { name: 'ended' };

export type LegPhaseName = LegPhase['name'];

/** A move the leg's phase does not allow: a bug in the pool (or a worker message out of order), never the guest's doing. */
export class LegPhaseError extends Error {
  override readonly name = 'LegPhaseError';

  constructor(
    readonly legId: string,
    readonly move: string,
    readonly phase: LegPhaseName,
  ) {
    super(`pool leg ${legId} cannot ${move} while ${phase}`);
  }
}

/** What a worker message of the leg means for the pool, once the leg counted it and moved its phase. */
export type LegMessageEffect =
  /** a run message: route it to the leg's handlers (a final one ends the leg) */
  | 'route'
  /** the leg's own (a pressure resume reported to the run): nothing more to do */
  | 'handled'
  /** the VM declined the checkpoint and stays: flush what waited in the backlog, and look at the queue again */
  | 'declined'
  /** the VM left its worker by a checkpoint: the pool lets the worker go and resumes, parks or holds the leg */
  | { checkpointed: 'reopen' | 'parked' | 'idle' }
  /** a pressure answer the leg never asked for: the worker broke the protocol */
  | { malformed: string };

export class PoolLeg {
  private _phase: LegPhase = { name: 'queued', reopen: false };
  /** The message that opens its VM on a worker: start or resume, and after a pressure checkpoint a resume of it. */
  private first: HostToWorker;
  private transfer: ArrayBuffer[];
  /** What a resume from a checkpoint needs from the leg's first message. */
  private readonly limits: LegLimits;
  private readonly files: DeclarationFiles;
  /** Messages for the VM while it has no worker to take them (waiting for a place, being checkpointed, checkpointed). */
  private backlog: HostToWorker[] = [];
  /** Requests the worker counts in flight: sent by the guest, reply not yet posted to a worker. */
  private inFlight: number;
  /** Output bytes the worker kept so far (maxOutputBytes is per leg). */
  private outputBytes = 0;
  /** Output bytes dropped on workers the leg has left. */
  private droppedBytes = 0;
  lastActiveAt = Date.now();

  constructor(
    readonly id: string,
    readonly handlers: LegHandlers,
    private readonly resolve: (o: LegOutcome) => void,
    /** One control block for the leg's life (deadline, abort flag, budget), shared with each worker it runs on. */
    readonly sab: SharedArrayBuffer,
    readonly control: Float64Array,
    first: HostToWorker,
    transfer: ArrayBuffer[],
  ) {
    const opening = first.t === 'start' || first.t === 'resume' || first.t === 'continue' ? first : undefined;
    if (!opening) throw new Error(`a pool leg opens with start or resume, not ${first.t}`);
    this.first = first;
    this.transfer = transfer;
    this.limits = opening.limits;
    this.files = opening.files;
    this.inFlight = opening.t === 'start' ? 0 : opening.inFlight;
  }

  get phase(): Readonly<LegPhase> {
    return this._phase;
  }

  get ended(): boolean {
    return this._phase.name === 'ended';
  }

  /** The worker its opening message went to (opening, open or checkpointing): the one to tell when the leg is released. */
  get postedTo(): PoolWorker | undefined {
    const p = this._phase;
    return p.name === 'opening' || p.name === 'open' || p.name === 'checkpointing' ? p.worker : undefined;
  }

  /** The worker holding its VM (placed, opening, open or checkpointing); none while queued, checkpointed or ended. */
  get worker(): PoolWorker | undefined {
    const p = this._phase;
    return p.name === 'placed' || p.name === 'opening' || p.name === 'open' || p.name === 'checkpointing' ? p.worker : undefined;
  }

  /** Requests the guest sent whose replies the worker does not have (a checkpoint is only worth it while the VM waits on them). */
  get waitingOnHost(): number {
    return this.inFlight;
  }

  /** Whether messages wait for a worker to take them. */
  get hasBacklog(): boolean {
    return this.backlog.length > 0;
  }

  private wrong(move: string): never {
    throw new LegPhaseError(this.id, move, this._phase.name);
  }

  // ---- placement ---------------------------------------------------------------------------------

  /** queued -> placed on `pw`; its opening message (then what waited for it) goes once the worker is ready. */
  place(pw: PoolWorker): void {
    const p = this._phase;
    if (p.name !== 'queued') this.wrong('be placed');
    const placed: LegPhase = { name: 'placed', worker: pw, reopen: p.reopen };
    this._phase = placed;
    this.lastActiveAt = Date.now();
    pw.ready.then(
      () => {
        // a leg that moved on meanwhile (ended, placed elsewhere) has another phase object
        if (this._phase !== placed || pw.dead) return;
        pw.post(this.first, this.transfer);
        this.transfer = [];
        this._phase = { name: 'opening', worker: pw, reopen: placed.reopen, parkSent: false };
        this.flush();
      },
      () => undefined, // the worker died: its legs were failed
    );
  }

  /** A message for the VM: straight to its worker once its opening went (and no checkpoint is asked), else kept. */
  send(msg: HostToWorker): void {
    if (this.ended) return;
    const name = this._phase.name;
    if (name === 'opening' || name === 'open') this.post(msg);
    else this.backlog.push(msg);
  }

  /** Post what waited in the backlog to the worker (it stays there). */
  flush(): void {
    for (const m of this.backlog.splice(0)) this.post(m);
  }

  /** Post to the leg's worker; what the worker counts (replies delivered, a park asked) is counted here too. */
  post(msg: HostToWorker): void {
    const p = this._phase;
    if (p.name !== 'opening' && p.name !== 'open') this.wrong(`post ${msg.t}`);
    if (p.worker.dead) return;
    if (msg.t === 'deliver') {
      this.inFlight -= msg.replies.length;
      // a VM that declined while busy is in a new state once it has replies: it may be asked again
      if (p.name === 'open' && p.declined === 'busy') delete p.declined;
    }
    if (msg.t === 'park') p.parkSent = true;
    p.worker.post(msg);
    // the guest's next request comes soon only after a narrow frontier's replies (spin-policy.mjs)
    if (msg.t === 'deliver' && msg.replies.length <= MAX_POLLED_FRONTIER) p.worker.afterReply();
  }

  // ---- worker messages ---------------------------------------------------------------------------

  /** A checked worker message of this leg: counted, its phase moved, and what the pool does next. */
  onMessage(msg: WorkerToHost): LegMessageEffect {
    this.lastActiveAt = Date.now();
    const p = this._phase;
    switch (msg.t) {
      case 'requests':
        this.inFlight += msg.requests.length;
        // new host work: a VM declined while busy may be asked again
        if (p.name === 'open' && p.declined === 'busy') delete p.declined;
        return 'route';
      case 'output':
        this.outputBytes += outputBytesOf(msg.lines);
        return 'route';
      case 'opened': {
        if (p.name !== 'opening') return 'route';
        this._phase = { name: 'open', worker: p.worker, parkSent: p.parkSent };
        if (!p.reopen) return 'route';
        // the run's budget started when the leg first opened: this is only the checkpoint restored
        this.handlers.onPressure?.({ phase: 'resumed', ...(msg.restoreMs !== undefined ? { restoreMs: msg.restoreMs } : {}) });
        return 'handled';
      }
      case 'pressure-declined':
        if (p.name !== 'checkpointing') return { malformed: `a pressure-declined answer while the leg was ${p.name}` };
        this._phase = { name: 'open', worker: p.worker, parkSent: false, declined: msg.storedBytes !== undefined ? 'over-limit' : 'busy' };
        return 'declined';
      case 'pressure-parked':
        if (p.name !== 'checkpointing') return { malformed: `a pressure-parked answer while the leg was ${p.name}` };
        return { checkpointed: this.checkpointed(msg) };
      default:
        return 'route';
    }
  }

  // ---- pressure ----------------------------------------------------------------------------------

  /** open -> checkpointing: the worker is asked to checkpoint the VM (pressure.ts chose it). */
  askCheckpoint(): void {
    const p = this._phase;
    if (p.name !== 'open') this.wrong('be asked for a checkpoint');
    this._phase = { name: 'checkpointing', worker: p.worker };
    p.worker.post({ t: 'pressure-park', legId: this.id });
  }

  /**
   * checkpointing -> checkpointed: the worker let the VM go; the run hears of the checkpoint. Then: `reopen` when
   * replies already wait for it, `parked` when the run asked it to park (and nothing else waits), else `idle`.
   */
  private checkpointed(msg: Extract<WorkerToHost, { t: 'pressure-parked' }>): 'reopen' | 'parked' | 'idle' {
    this.droppedBytes += msg.droppedBytes;
    if (!msg.snapshot) throw new Error('a pressure checkpoint carries a snapshot (checked by protocol-check)');
    this._phase = {
      name: 'checkpointed',
      checkpoint: { snapshot: msg.snapshot, rawBytes: msg.rawBytes, storedBytes: msg.storedBytes, takeMs: msg.takeMs, settled: msg.settled, queued: msg.queued },
    };
    this.handlers.onPressure?.({ phase: 'parked', rawBytes: msg.rawBytes, storedBytes: msg.storedBytes, takeMs: msg.takeMs });
    if (this.backlog.some((m) => m.t === 'deliver')) return 'reopen';
    if (this.backlog.some((m) => m.t === 'park')) return 'parked';
    return 'idle';
  }

  /**
   * checkpointed -> queued: its checkpoint becomes its opening message again, a resume on whichever worker takes it
   * next (with its counts, so the worker goes on where the last one stopped).
   */
  reopen(): void {
    const p = this._phase;
    if (p.name !== 'checkpointed') this.wrong('reopen from a checkpoint');
    const cp = p.checkpoint;
    // the run set the deadline when the leg first opened (or paused it for an approval): the worker
    // must keep it, not start a fresh budget (a negative budget tells it so)
    this.control[CONTROL_BUDGET] = -1;
    this.first = {
      t: 'resume',
      legId: this.id,
      snapshot: cp.snapshot,
      limits: this.limits,
      control: this.sab,
      files: this.files,
      inFlight: this.inFlight,
      ...(cp.settled ? { settled: cp.settled } : {}),
      outputBytes: this.outputBytes,
    };
    this.transfer = [cp.snapshot.buffer as ArrayBuffer];
    this._phase = { name: 'queued', reopen: true };
  }

  /** The leg parks (its budget ended, or the guest yielded) while checkpointed: the checkpoint is its continuation. */
  parkedOutcome(): LegOutcome {
    const p = this._phase;
    if (p.name !== 'checkpointed') this.wrong('park from a checkpoint');
    const cp = p.checkpoint;
    this.backlog = [];
    return {
      kind: 'parked',
      continuation: { executor: 'quickjs', snapshot: cp.snapshot, rawBytes: cp.rawBytes, storedBytes: cp.storedBytes, settled: cp.settled },
      queued: cp.queued,
      takeMs: cp.takeMs,
      droppedBytes: 0,
    };
  }

  // ---- the end -------------------------------------------------------------------------------------

  /** Any phase -> ended: the run gets `outcome` (with the output bytes dropped on workers it left). Returns the worker it was on. */
  finish(outcome: LegOutcome): PoolWorker | undefined {
    const worker = this.worker;
    this._phase = { name: 'ended' };
    this.resolve({ ...outcome, droppedBytes: outcome.droppedBytes + this.droppedBytes });
    return worker;
  }
}

/** Bytes of output lines as the worker counts them against maxOutputBytes. */
export function outputBytesOf(lines: CodeModeOutput[]): number {
  return lines.reduce((n, l) => n + Buffer.byteLength(l.text, 'utf8'), 0);
}
