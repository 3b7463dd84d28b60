'use client';
// The replay lab on the page: run the cell with a seed, replay it from a cassette file, and download the selected run's cassette or save it as a test.
import { memo, useEffect, useRef, useState } from 'react';
import { Button, ErrorNote, Panel } from '../ui/Panel.tsx';
import { errorMessage } from '../playground/errors.ts';
import { useTRPCClient } from '../trpc.ts';
import type { Run } from '../api.ts';

/** What a Run from this panel adds to the editor's exec: a seed, a cassette to replay (and its source for the editor). */
export interface LabRun {
  seed?: number;
  replay?: unknown;
  code?: string;
}

/** Largest cassette file the page reads: past this it is not a recording of one cell. */
const MAX_CASSETTE_FILE_BYTES = 64 * 1024 * 1024;

function downloadText(fileName: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** What each clock a run reads means (the run line's hover). */
const CLOCK_TITLES: Record<Run['clock'], string> = {
  real: "the host's real clock: today's date, moving across awaits and tool calls",
  logical: "the seed's logical clock: an instant of 2025 that moves only when a timer fires, not today's date",
  replayed: "the readings the cassette recorded, returned in order",
};

/** The seed field as a uint32, undefined when blank, or the message saying what is wrong. */
export function parseSeed(text: string): number | undefined | { error: string } {
  const t = text.trim();
  if (t === '') return undefined;
  const n = /^\d{1,10}$/.test(t) ? Number(t) : NaN;
  return n <= 0xffff_ffff ? n : { error: `seed: write an integer from 0 to 4294967295 (got "${t.slice(0, 20)}")` };
}

// memo: the page re-renders on every live event; this panel only when its own props change (issue 14)
export const ReplayLabPanel = memo(function ReplayLabPanel(props: {
  selectedRun?: Run | undefined;
  running: boolean;
  canRun: boolean;
  onRun(lab: LabRun): void;
  /** The editor's cell now: a cassette that recorded another cell asks before replacing it. */
  currentCode(): string;
}) {
  const client = useTRPCClient();
  const [seedText, setSeedText] = useState('');
  const [error, setError] = useState<string>();
  const [saved, setSaved] = useState<string>();
  // a cassette whose recorded cell differs from the editor's: which one to replay is the user's call
  const [choice, setChoice] = useState<{ fileName: string; cassette: unknown; code: string }>();
  const run = props.selectedRun;
  const fileInput = useRef<HTMLInputElement>(null);
  // What the lab says after an action (a question, an error, a saved test) comes into view where the user is: the
  // panel may sit at the bottom edge of the cell's column. The question also takes the focus.
  const choiceRef = useRef<HTMLDivElement>(null);
  const noteRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!choice) return;
    choiceRef.current?.scrollIntoView({ block: 'nearest' });
    choiceRef.current?.querySelector('button')?.focus({ preventScroll: true });
  }, [choice]);
  useEffect(() => {
    if (error !== undefined || saved !== undefined) noteRef.current?.scrollIntoView({ block: 'nearest' });
  }, [error, saved]);

  // The field is the seed of the next "Run with seed" only, so it is emptied once that run starts: a seed left in it
  // would read as the seed of every later Run, which draws its own (the run shows the seed it used; "reuse" brings it back).
  const runWithSeed = () => {
    const seed = parseSeed(seedText);
    if (typeof seed === 'object') return setError(seed.error);
    setError(undefined);
    setSeedText('');
    props.onRun(seed !== undefined ? { seed } : {});
  };
  const replayFile = async (file: File | undefined) => {
    if (!file) return;
    if (file.size > MAX_CASSETTE_FILE_BYTES) return setError(`${file.name} is ${file.size} bytes: not a cassette of one cell`);
    let cassette: unknown;
    try {
      cassette = JSON.parse(await file.text());
    } catch (err) {
      return setError(`${file.name} is not JSON (${(err as Error).message}); pick a cassette downloaded from this page or written by codemode run --record`);
    }
    const code = cassette !== null && typeof cassette === 'object' && typeof (cassette as { code?: unknown }).code === 'string' ? (cassette as { code: string }).code : undefined;
    setError(undefined);
    if (code !== undefined && code.trim() !== props.currentCode().trim()) return setChoice({ fileName: file.name, cassette, code });
    // the Gateway checks the cassette field by field; a wrong one comes back as the run's invalid_input
    props.onRun({ replay: cassette, ...(code !== undefined ? { code } : {}) });
  };
  const replayChosen = (cell: 'recorded' | 'current') => {
    if (!choice) return;
    setChoice(undefined);
    props.onRun(cell === 'recorded' ? { replay: choice.cassette, code: choice.code } : { replay: choice.cassette });
  };
  const downloadCassette = async () => {
    if (!run) return;
    try {
      const cassette = await client.runs.cassette.query({ runId: run.runId });
      downloadText(`${run.runId}.cassette.json`, JSON.stringify(cassette, null, 2) + '\n', 'application/json');
      setError(undefined);
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  const saveAsTest = async () => {
    if (!run) return;
    try {
      const files = await client.runs.saveAsTest.query({ runId: run.runId });
      downloadText(files.cassette.fileName, files.cassette.text, 'application/json');
      downloadText(files.test.fileName, files.test.text, 'text/typescript');
      setSaved(`${files.test.fileName} and ${files.cassette.fileName}: put both in replays/, then npx vitest run replays/`);
      setError(undefined);
    } catch (err) {
      setError(errorMessage(err));
    }
  };

  return (
    // shrink-0: the cell's column scrolls rather than squeeze the lab (it was cut to 2 px at 1280x720, its notes to a 73 px box)
    <Panel title="Replay lab" testId="replay-lab" className="shrink-0">
      <div className="flex flex-wrap items-center gap-1.5 text-[11px] text-neutral-400">
        <label className="flex items-center gap-1">
          seed
          <input
            data-testid="seed-input"
            inputMode="numeric"
            className="w-28 rounded border border-neutral-700 bg-neutral-950 px-1 py-0.5 font-mono text-xs text-neutral-200 placeholder:text-neutral-600"
            placeholder="random"
            title="the seed of the next Run with seed; empty: a random one. Run always draws a random seed."
            value={seedText}
            onChange={(e) => setSeedText(e.target.value)}
          />
        </label>
        <Button testId="run-with-seed" disabled={!props.canRun || props.running} onClick={runWithSeed} title="run the editor's cell with this seed (empty: a random seed): Math.random repeats, and the cell reads the seed's logical clock (an instant of 2025 that moves only when a timer fires), not today's date">
          Run with seed
        </Button>
        <Button
          testId="replay-from-cassette"
          disabled={!props.canRun || props.running}
          onClick={() => fileInput.current?.click()}
          title="pick a cassette file (downloaded here, or written by codemode run --record): the cell runs with every tool call answered from it"
        >
          replay from cassette…
        </Button>
        <input
          ref={fileInput}
          type="file"
          accept="application/json,.json"
          data-testid="replay-file"
          aria-label="cassette file to replay"
          className="hidden"
          disabled={!props.canRun || props.running}
          onChange={(e) => {
            void replayFile(e.target.files?.[0]);
            e.target.value = '';
          }}
        />
      </div>
      <div className="mt-1 flex flex-wrap items-center gap-1.5 text-[11px] text-neutral-400">
        {run ? (
          <>
            <span>
              run <span className="font-mono">{run.runId}</span> · seed <span data-testid="run-seed" className="font-mono text-neutral-200">{run.seed}</span> ·{' '}
              <span data-testid="run-clock" title={CLOCK_TITLES[run.clock]}>
                {run.clock} clock
              </span>
            </span>
            <Button kind="ghost" testId="reuse-seed" onClick={() => setSeedText(String(run.seed))} title="put this run's seed in the seed field, for Run with seed">
              reuse seed
            </Button>
            <Button testId="cassette-download" onClick={() => void downloadCassette()} title="its tool calls, clock readings, seed and outcome as a cassette file">
              download cassette
            </Button>
            <Button testId="save-as-test" disabled={run.state !== 'completed'} onClick={() => void saveAsTest()} title="a cassette and a Vitest file that replays the cell and asserts its value">
              save as test
            </Button>
          </>
        ) : (
          <span>select a run to download its cassette or save it as a test</span>
        )}
      </div>
      {choice ? (
        <div ref={choiceRef} data-testid="replay-choice" role="group" aria-label="which cell to replay" className="mt-1 space-y-1 rounded border border-amber-900/60 bg-amber-950/20 p-1.5 text-[11px] text-amber-200">
          <p>
            {choice.fileName} recorded another cell than the one in the editor. Replay the recorded cell (it replaces the editor's cell), or the
            editor's cell against the cassette (a call the cassette does not hold fails with replay_mismatch)?
          </p>
          <div className="flex flex-wrap gap-1.5">
            <Button kind="primary" disabled={!props.canRun || props.running} onClick={() => replayChosen('recorded')}>
              replay the recorded cell
            </Button>
            <Button disabled={!props.canRun || props.running} onClick={() => replayChosen('current')}>
              replay the current cell
            </Button>
            <Button kind="ghost" onClick={() => setChoice(undefined)}>
              cancel
            </Button>
          </div>
        </div>
      ) : null}
      <div ref={noteRef} className="space-y-1 empty:hidden">
        {saved ? (
          <p data-testid="save-as-test-done" className="mt-1 text-[11px] text-emerald-300">
            saved {saved}
          </p>
        ) : null}
        {error ? <ErrorNote title="Replay lab">{error}</ErrorNote> : null}
      </div>
    </Panel>
  );
});
