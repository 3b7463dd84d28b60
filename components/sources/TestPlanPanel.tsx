'use client';
// The Test plan tab: runs the spec's 16 E2E steps against the loaded config and shows each verdict, the cell
// it ran, what came back, and a link that selects its run (trajectory).
import { useMutation } from '@tanstack/react-query';
import { memo, useState } from 'react';
import { useTRPC } from '../trpc.ts';
import { errorMessage } from '../playground/errors.ts';
import { Button, Empty, ErrorNote, Panel } from '../ui/Panel.tsx';
import type { TestPlanStep } from '../api.ts';

const VERDICT: Record<TestPlanStep['verdict'], { text: string; color: string }> = {
  pass: { text: 'pass', color: 'bg-emerald-900/60 text-emerald-300 border-emerald-800' },
  fail: { text: 'fail', color: 'bg-rose-900/60 text-rose-300 border-rose-800' },
  not_applicable: { text: 'n/a', color: 'bg-neutral-800 text-neutral-400 border-neutral-700' },
};

function StepRow(props: { step: TestPlanStep; onOpenRun: (runId: string) => void }) {
  const { step } = props;
  const [open, setOpen] = useState(false);
  const v = VERDICT[step.verdict];
  return (
    <li data-testid="plan-step" data-step={step.step} data-verdict={step.verdict} className="rounded border border-neutral-800 bg-neutral-950/50 px-2 py-1">
      <div className="flex items-start gap-2">
        <span className={`mt-px shrink-0 rounded border px-1.5 font-mono text-[11px] ${v.color}`}>{v.text}</span>
        <button type="button" className="min-w-0 flex-1 text-left text-xs text-neutral-200" aria-expanded={open} onClick={() => setOpen(!open)}>
          {step.step}. {step.title}
        </button>
        {step.runId ? (
          <button type="button" data-testid="plan-step-run" data-run-id={step.runId} className="shrink-0 font-mono text-[10px] text-sky-400 hover:underline" onClick={() => props.onOpenRun(step.runId!)}>
            trajectory
          </button>
        ) : null}
      </div>
      <div data-testid="plan-step-detail" className="pl-10 text-[11px] text-neutral-400">
        {step.detail}
      </div>
      {open ? (
        <div className="mt-1 space-y-1 pl-10">
          {step.cell ? <pre className="max-h-48 overflow-auto rounded bg-neutral-950 p-1.5 font-mono text-[11px] text-neutral-300">{step.cell}</pre> : null}
          {step.result !== undefined ? (
            <pre className="max-h-48 overflow-auto rounded bg-neutral-950 p-1.5 font-mono text-[11px] text-neutral-400">{JSON.stringify(step.result, null, 2)}</pre>
          ) : null}
        </div>
      ) : null}
    </li>
  );
}

// memo: the page re-renders on every live event; this panel only when its own props change (issue 14)
export const TestPlanPanel = memo(function TestPlanPanel(props: { agentId: string | undefined; onOpenRun: (runId: string) => void }) {
  const trpc = useTRPC();
  const run = useMutation(trpc.testPlan.run.mutationOptions());
  const report = run.data;
  return (
    <Panel
      title="Test plan"
      testId="testplan-panel"
      actions={
        <Button kind="primary" testId="testplan-run" disabled={run.isPending} onClick={() => run.mutate(props.agentId ? { agentId: props.agentId } : {})}>
          {run.isPending ? 'running…' : 'run the spec plan'}
        </Button>
      }
    >
      {run.error ? <ErrorNote title="The test plan could not run">{errorMessage(run.error)}</ErrorNote> : null}
      {!report && !run.error ? (
        <Empty>{run.isPending ? 'Running the 16 steps against the loaded catalog…' : `Runs the spec's 16 E2E steps against the loaded config${props.agentId ? ` as agent "${props.agentId}"` : ''}.`}</Empty>
      ) : null}
      {report ? (
        <div className="space-y-1.5">
          <div data-testid="testplan-summary" className="text-[11px] text-neutral-400">
            {report.summary.pass} passed, {report.summary.fail} failed, {report.summary.notApplicable} not applicable (agent &quot;{report.agentId}&quot;)
          </div>
          <ol className="space-y-1">
            {report.steps.map((s) => (
              <StepRow key={s.step} step={s} onOpenRun={props.onOpenRun} />
            ))}
          </ol>
        </div>
      ) : null}
    </Panel>
  );
});
