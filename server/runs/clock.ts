// The guest's clock on the host side: which clock a run reads, and the recording of every reading it made.
//
// A run reads one of three clocks (the guest side is prelude.js, "time and randomness"):
//   real      the host's clock: every run without an explicit seed (the default);
//   logical   an explicitly seeded run: starts at a seed-derived instant of 2025 and moves only when a timer fires,
//             so the same seed and tool results repeat its value whenever and wherever it runs;
//   replayed  a replay of a cassette that recorded readings: the guest gets those readings back, in order.
// A replay of a cassette recorded before readings were kept reads the seed's logical clock, as it did then.
// Every reading is recorded, whatever the clock: the guest keeps run-length pairs and the executor carries them
// out with each leg's outcome (LegOutcome.clock), so they survive QuickJS snapshots, live continuations and forks;
// the run appends them here, and its cassette carries them.
import type { ClockReadings, GuestClockConfig } from '../bridge/protocol.ts';
import { MAX_CLOCK_RUNS } from '../bridge/protocol-check.mjs';

export { MAX_CLOCK_RUNS };

/** The clock a run reads, as its view, trajectory and transcript name it. */
export type ClockMode = 'real' | 'logical' | 'replayed';

/** A recording as a cassette carries it: the run's start, the reading pairs, readings past the cap (counted only). */
export interface RecordedClock {
  /** Which clock the recorded run read (for reading; a replay returns the readings whatever it was). */
  mode?: ClockMode;
  /** The run's clock start (epoch ms): performance.now's origin, and the base of the first pair's difference. */
  startMs: number;
  /** Flat pairs: the difference from the previous reading (ms), then how many readings in a row had that value. */
  runs: number[];
  /** Readings made after MAX_CLOCK_RUNS pairs were kept: counted, not kept (a replay fails when it reaches them). */
  dropped?: number;
}

/** Which clock a cell reads, decided when its exec is called (control-call.ts). */
export type ClockPlan = { mode: 'real' } | { mode: 'logical' } | { mode: 'replayed'; recording: RecordedClock };

/** Epoch ms of 2025-01-01T00:00:00Z: the logical clocks' year starts here (prelude.js CLOCK_BASE_MS). */
export const LOGICAL_CLOCK_BASE_MS = 1_735_689_600_000;
const YEAR_SECONDS = 365 * 24 * 3600;
/** The largest time a JavaScript Date holds (ECMAScript: 8.64e15 ms either side of the epoch). */
export const MAX_DATE_MS = 8.64e15;

/**
 * Where a seed's logical clock starts: the seed's first mulberry32 draw picks a whole second of 2025. The guest
 * computes the same (prelude.js installClock); the clock test holds the two equal.
 */
export function logicalClockStartMs(seed: number): number {
  let state = (seed | 0) + 0x6d2b79f5;
  state |= 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  const draw = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  return LOGICAL_CLOCK_BASE_MS + Math.floor(draw * YEAR_SECONDS) * 1000;
}

/** Every clock reading of one run, appended leg by leg (bounded: MAX_CLOCK_RUNS pairs, then only counted). */
export class ClockRecording {
  private readonly runs: number[] = [];
  private dropped = 0;

  constructor(
    readonly mode: ClockMode,
    /** The run's clock start: the base of the first pair's difference. */
    readonly startMs: number,
  ) {}

  /** A recording as toJSON wrote it (a run record read back; checked by checkRecordedClock). */
  static fromJSON(recorded: RecordedClock & { mode: ClockMode }): ClockRecording {
    const out = new ClockRecording(recorded.mode, recorded.startMs);
    out.runs.push(...recorded.runs);
    out.dropped = recorded.dropped ?? 0;
    return out;
  }

  /** The recording a fork continues from: the same start, the parent's readings so far. */
  copy(): ClockRecording {
    const out = new ClockRecording(this.mode, this.startMs);
    out.runs.push(...this.runs);
    out.dropped = this.dropped;
    return out;
  }

  /** A leg's readings (checked by protocol-check.mjs): a pair with no change of value extends the last one. */
  append(readings: ClockReadings): void {
    const { runs } = readings;
    for (let i = 0; i + 1 < runs.length; i += 2) {
      const delta = runs[i]!;
      const count = runs[i + 1]!;
      const n = this.runs.length;
      if (this.dropped > 0) this.dropped += count;
      else if (delta === 0 && n > 0) this.runs[n - 1]! += count;
      else if (n / 2 >= MAX_CLOCK_RUNS) this.dropped += count;
      else this.runs.push(delta, count);
    }
    this.dropped += readings.dropped;
  }

  /** Readings kept (the sum of the pairs' counts). */
  get recorded(): number {
    let n = 0;
    for (let i = 1; i < this.runs.length; i += 2) n += this.runs[i]!;
    return n;
  }

  /** The recording as a cassette (and a run record) carries it. */
  toJSON(): RecordedClock & { mode: ClockMode } {
    return { mode: this.mode, startMs: this.startMs, runs: [...this.runs], ...(this.dropped > 0 ? { dropped: this.dropped } : {}) };
  }
}

/** The recording a new run of `plan` starts (its clock start: now, the seed's instant, or the recording's). */
export function startRecording(plan: ClockPlan, seed: number, nowMs: number): ClockRecording {
  if (plan.mode === 'replayed') return new ClockRecording('replayed', plan.recording.startMs);
  if (plan.mode === 'logical') return new ClockRecording('logical', logicalClockStartMs(seed));
  return new ClockRecording('real', nowMs);
}

/** What the guest's boot config says about its clock. */
export function guestClock(plan: ClockPlan, recording: ClockRecording): GuestClockConfig {
  if (plan.mode === 'logical') return { mode: 'logical' };
  if (plan.mode === 'real') return { mode: 'real', startMs: recording.startMs };
  const r = plan.recording;
  const recorded = new ClockRecording('replayed', r.startMs);
  recorded.append({ runs: r.runs, dropped: r.dropped ?? 0 });
  return { mode: 'replay', startMs: r.startMs, runs: [...r.runs], recorded: recorded.recorded, dropped: r.dropped ?? 0 };
}

/**
 * `raw` (a cassette's `clock`, hostile) as a RecordedClock, or a message naming what is wrong. Every reading must
 * be a time a Date can hold, so a replay never hands the guest a value its Date turns into an invalid date.
 */
export function checkRecordedClock(raw: unknown): { ok: true; value: RecordedClock } | { ok: false; error: string } {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { ok: false, error: 'clock must be an object { startMs, runs, dropped? }' };
  const c = raw as Record<string, unknown>;
  const inRange = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && Math.abs(v) <= MAX_DATE_MS;
  if (!inRange(c.startMs)) return { ok: false, error: 'clock.startMs must be a time in ms a Date can hold' };
  if (c.mode !== undefined && c.mode !== 'real' && c.mode !== 'logical' && c.mode !== 'replayed') {
    return { ok: false, error: 'clock.mode must be "real", "logical" or "replayed"' };
  }
  const runs = c.runs;
  if (!Array.isArray(runs) || runs.length % 2 !== 0 || runs.length > 2 * MAX_CLOCK_RUNS) {
    return { ok: false, error: `clock.runs must be a list of at most ${MAX_CLOCK_RUNS} pairs [difference ms, repeats]` };
  }
  let value = c.startMs;
  for (let i = 0; i < runs.length; i += 2) {
    const delta: unknown = runs[i];
    const count: unknown = runs[i + 1];
    if (typeof delta !== 'number' || !Number.isFinite(delta) || typeof count !== 'number' || !Number.isSafeInteger(count) || count < 1) {
      return { ok: false, error: `clock.runs pair ${i / 2} must be a difference in ms and a positive count` };
    }
    value += delta;
    if (!inRange(value)) return { ok: false, error: `clock.runs pair ${i / 2} reads a time no Date can hold` };
  }
  if (c.dropped !== undefined && (typeof c.dropped !== 'number' || !Number.isSafeInteger(c.dropped) || c.dropped < 0)) {
    return { ok: false, error: 'clock.dropped must be a count' };
  }
  const out: RecordedClock = { startMs: c.startMs, runs: [...(runs as number[])] };
  if (c.mode !== undefined) out.mode = c.mode;
  if (typeof c.dropped === 'number' && c.dropped > 0) out.dropped = c.dropped;
  return { ok: true, value: out };
}
