'use client';
// The playground page: turn setup, the cell editor, and the live panels around it.
import { useQuery } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { deniedToolsOf } from './editor/index.ts';
import type { CellEditorApi, CellLanguage } from './editor/index.ts';
import { useLiveRuns } from './live/useLiveRuns.ts';
import { approvalsInScope, boardRuns, isLive, listedRuns, queuedBehind, runForToolCall, runsInScope } from './live/runsState.ts';
import { ApprovalsPrompt, showApprovalsPrompt } from './panels/ApprovalsPrompt.tsx';
import { CatalogPanel } from './panels/CatalogPanel.tsx';
import { ResultPanel } from './panels/ResultPanel.tsx';
import { RunsPanel } from './panels/RunsPanel.tsx';
import { SurfacePanel } from './panels/SurfacePanel.tsx';
import { WaitingBoard } from './panels/WaitingBoard.tsx';
import { ReplayLabPanel, type LabRun } from './panels/ReplayLabPanel.tsx';
import { DetailTabs } from './playground/DetailTabs.tsx';
import { EditorPanel } from './playground/EditorPanel.tsx';
import { useBoardActions } from './playground/useBoardActions.ts';
import { errorMessage } from './playground/errors.ts';
import { DEFAULT_EXAMPLE, exampleStillLoaded } from './playground/examples.ts';
import type { ExampleCell } from './playground/examples.ts';
import { resultRunId, shownCall } from './playground/callState.ts';
import { useCellCalls } from './playground/useCellCalls.ts';
import { afterNextPaint } from './playground/holdQueue.ts';
import { useInferredTypes } from './playground/useInferredTypes.ts';
import { useCellUrl } from './playground/useCellUrl.ts';
import { useResultInView } from './playground/useResultInView.ts';
import { useRestoredResult } from './playground/useRestoredResult.ts';
import { useTurn } from './playground/useTurn.ts';
import { useTurnSettings } from './playground/useTurnSettings.ts';
import { approvalsPlacement, gridColumns, WIDE_LAYOUT_QUERY } from './playground/layout.ts';
import { useMediaQuery } from './ui/useMediaQuery.ts';
import { SideColumn, useCollapsedColumns } from './playground/SideColumn.tsx';
import { useTRPC } from './trpc.ts';
import { CONNECTION_LABELS, ConnectionBanner } from './playground/ConnectionBanner.tsx';
import { Button } from './ui/Panel.tsx';
import { ThemeToggle } from './ui/ThemeToggle.tsx';
import type { PendingToolCall, Run } from './api.ts';
import { ComparePanel } from './panels/ComparePanel.tsx';
import { LeftBehindNotice, useRunsLeftBehind } from './playground/LeftBehind.tsx';
import { useCompare } from './playground/useCompare.ts';
import { typecheckRequest } from './playground/typecheckRequest.ts';
import { effectiveAgentId, turnRequestOf } from './playground/turnRequest.ts';
import { LinkNotice } from './playground/LinkNotice.tsx';
import { TurnControls } from './playground/TurnControls.tsx';

export function Playground() {
  const trpc = useTRPC();
  const { initial, writeCell, writeSettings, writeRun, shareUrl, holdWrites, releaseWrites } = useCellUrl();

  // The cell (code lives in the editor; this mirror feeds the URL and exec). A visit starts with the link's cell, else the first example.
  const [cell] = useState(() => initial.cell ?? { code: DEFAULT_EXAMPLE.code, language: DEFAULT_EXAMPLE.language });
  const codeRef = useRef(cell.code);
  const editorRef = useRef<CellEditorApi | null>(null);
  const [language, setLanguage] = useState<CellLanguage>(cell.language);

  // The turn's settings (agent, model, client tools, executor, typecheck, example): a link's, kept in the URL.
  const agentsQuery = useQuery(trpc.config.agents.queryOptions());
  const settings = useTurnSettings({
    linked: initial.settings,
    defaultExampleId: initial.cell ? undefined : DEFAULT_EXAMPLE.id,
    agents: agentsQuery.data,
    write: writeSettings,
  });
  const { agentId, setAgentId, model, setModel, clientTools, setClientTools, typecheck, setTypecheck, typecheckInferred, executor, setExecutor } = settings;
  const checks = useMemo(() => typecheckRequest({ language, typecheck, typecheckInferred }), [language, typecheck, typecheckInferred]);
  const agent = agentsQuery.data?.find((a) => a.id === agentId);
  // nothing is asked for an agent before the Gateway's list confirms it (a link's unknown agent would be three 400s)
  const agents = agentsQuery.data;
  const turnRequest = useMemo(() => turnRequestOf(agents ? effectiveAgentId(agentId, agents) : undefined, model, clientTools), [agents, agentId, model, clientTools]);
  const turn = useTurn(turnRequest);
  const surfaceQuery = useQuery({ ...trpc.config.surface.queryOptions(turnRequest ?? {}), enabled: turnRequest !== undefined });
  const catalogQuery = useQuery({ ...trpc.catalog.list.queryOptions(turnRequest ?? {}), enabled: turnRequest !== undefined });
  const deniedTools = useMemo(() => deniedToolsOf(catalogQuery.data?.tools ?? []), [catalogQuery.data]);

  // Live state.
  const live = useLiveRuns();
  const [selectedRunId, setSelectedRunId] = useState<string | undefined>(initial.runId);
  const selectedRun = live.runs.find((r) => r.runId === selectedRunId);

  const selectRun = useCallback(
    (runId: string | undefined) => {
      setSelectedRunId(runId);
      writeRun(runId);
    },
    [writeRun],
  );

  // what a Run held back (its URL writes, the live events) follows its result: the URL at once (a reload finds
  // the run), the events after the result is painted
  const { holdEvents, releaseEvents } = live;
  const onExecShown = useCallback(() => {
    releaseWrites();
    afterNextPaint(releaseEvents);
  }, [releaseWrites, releaseEvents]);
  const calls = useCellCalls({ timeoutMs: surfaceQuery.data?.options.timeoutMs, onRun: selectRun, onExecShown });
  const { call, running, waitingFor, exec: execCell, wait: waitRun, abort: onAbort, clear: clearCall } = calls;

  // A new exec selects its run as soon as the run's start event names the exec's tool-call id (once: the user
  // may pick another run while it runs). Trajectory, snapshots and Stop then follow the run that is executing.
  const shownResultCall = shownCall(call, selectedRun, live.runs);
  // the token meter lives on the run view (it counts every call of the run), the result is one call's
  const shownResult = shownResultCall?.result;
  const shownRun = shownResult ? live.runs.find((r) => r.runId === resultRunId(shownResult)) : undefined;
  const shownMeter = shownRun?.meter;
  const runningRun = calls.runningToolCallId !== undefined ? runForToolCall(live.runs, calls.runningToolCallId) : undefined;
  // the user sees each exec run and end without looking for the result
  const resultRef = useResultInView(call);
  const autoSelected = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (!runningRun || autoSelected.current === calls.runningToolCallId) return;
    autoSelected.current = calls.runningToolCallId;
    selectRun(runningRun.runId);
  }, [runningRun, calls.runningToolCallId, selectRun]);

  // Another turn (new turn, new session, another agent or model): the shown result and run belong to the turn
  // that ended; its runs still live are named in a notice (the panels show this turn only).
  const turnId = turn.turn?.agentRunId;
  const onTurnChanged = useCallback(() => {
    clearCall();
    selectRun(undefined);
  }, [clearCall, selectRun]);
  const leftBehind = useRunsLeftBehind(turnId, live.runs, onTurnChanged);

  // Scope: the page's own turn by default; "all turns" shows every run the operator can see.
  const [allTurns, setAllTurns] = useState(false);
  const columns = useCollapsedColumns();
  const wide = useMediaQuery(WIDE_LAYOUT_QUERY);
  const approvalsWhere = approvalsPlacement(wide, columns.collapsed);
  // kept while the run list holds: the memoized panels re-render only when what they show changed
  const scopedRuns = useMemo(() => runsInScope(live.runs, allTurns ? { kind: 'all' } : { kind: 'turn', agentRunId: turnId }), [live.runs, allTurns, turnId]);
  const scopedApprovals = useMemo(() => approvalsInScope(live.approvals, scopedRuns), [live.approvals, scopedRuns]);
  // the runs list always holds the selected run, also one of another turn (a Test plan step's): list and trajectory agree
  const runsListed = useMemo(() => listedRuns(scopedRuns, live.runs, selectedRunId), [scopedRuns, live.runs, selectedRunId]);
  const ownRuns = useMemo(() => live.runs.filter((r) => turnId !== undefined && r.agentRunId === turnId), [live.runs, turnId]);
  const ownWaiting = useMemo(() => ownRuns.filter((r) => r.state === 'waiting'), [ownRuns]);
  const endTurn = (next: () => void) => {
    const liveRuns = ownRuns.filter(isLive);
    const question = `End this turn? Its ${liveRuns.length} running or waiting run${liveRuns.length === 1 ? '' : 's'} will be aborted.`;
    if (liveRuns.length > 0 && !window.confirm(question)) return;
    leftBehind.leaving(liveRuns.map((r) => r.runId));
    next();
  };
  useRestoredResult(initial.runId, calls.restore);

  // A source connected, failed or went: the editor's declarations and the surface follow at once, and the
  // page's turn is prepared again so the next cell sees the new catalog. A turn with running or parked runs
  // keeps its catalog (the spec's lifetime rules): "New turn" applies the change there.
  const { refetch: refetchSurface } = surfaceQuery;
  const { refetch: refetchCatalog } = catalogQuery;
  const restartTurn = turn.restart;
  const ownRunsLive = ownRuns.some(isLive);
  const onCatalogChanged = useCallback(() => {
    void refetchSurface();
    void refetchCatalog();
    if (!ownRunsLive) restartTurn();
  }, [refetchSurface, refetchCatalog, restartTurn, ownRunsLive]);

  // `lab`: the replay lab's seed or cassette (with `code`, the cassette's own source, which replaces the editor's)
  const runCell = useCallback((lab: LabRun = {}) => {
    const agentRunId = turn.turn?.agentRunId;
    if (!agentRunId || running) return;
    if (lab.code !== undefined) editorRef.current?.setValue(lab.code);
    const code = lab.code ?? editorRef.current?.getValue() ?? codeRef.current;
    codeRef.current = code;
    // the URL and the live lists follow once the result shows (or MAX_HOLD_MS): the cores stay the Gateway's meanwhile
    holdWrites();
    holdEvents();
    writeCell({ code, language });
    // Nothing from the previous run stays on screen: a cell that fails before it runs (typecheck) shows no run.
    selectRun(undefined);
    execCell({
      agentRunId,
      input: { code, language, ...checks.inputFields },
      ...checks.requestFields,
      ...(executor !== 'default' ? { executor } : {}),
      ...(lab.seed !== undefined ? { seed: lab.seed } : {}),
      ...(lab.replay !== undefined ? { replay: lab.replay } : {}),
    });
  }, [turn.turn, running, language, checks, executor, execCell, writeCell, selectRun, holdWrites, holdEvents]);

  // "Run on all executors": the editor's cell, as Run would send it, on each executor in its own run
  const cellInput = () => ({ code: editorRef.current?.getValue() ?? codeRef.current, language, ...checks.inputFields });
  const compare = useCompare(() => (turn.turn ? { agentRunId: turn.turn.agentRunId, input: cellInput(), ...checks.requestFields } : undefined));
  // the editor panel's callbacks keep their identity (the panel is memoized; Monaco sits inside it)
  const onLanguageChange = useCallback(
    (lang: CellLanguage) => {
      setLanguage(lang);
      writeCell({ code: editorRef.current?.getValue() ?? codeRef.current, language: lang });
    },
    [writeCell],
  );
  const { setExampleId } = settings;
  const onCodeChange = useCallback(
    (code: string) => {
      codeRef.current = code;
      writeCell({ code, language });
      // the menu (and the link's example=) name an example only while the cell is that example
      setExampleId((current) => exampleStillLoaded(code, current));
    },
    [writeCell, language, setExampleId],
  );
  const onRunPressed = useCallback(() => runCell(), [runCell]);
  const onEditorReady = useCallback((api: CellEditorApi) => {
    editorRef.current = api;
  }, []);
  const currentCode = useCallback(() => editorRef.current?.getValue() ?? codeRef.current, []);
  const onExample = useCallback(
    (example: ExampleCell) => {
      setExampleId(example.id);
      editorRef.current?.setValue(example.code);
      codeRef.current = example.code;
      setLanguage(example.language);
      writeCell({ code: example.code, language: example.language });
    },
    [setExampleId, writeCell],
  );
  const cellShareUrl = useCallback(() => shareUrl({ code: editorRef.current?.getValue() ?? codeRef.current, language }), [shareUrl, language]);
  const onWaitRun = useCallback((run: Run) => waitRun(run.runId, run.agentRunId), [waitRun]);
  const onWaitFromResult = useCallback(
    (runId: string) => {
      const run = live.runs.find((r) => r.runId === runId);
      const agentRunId = run?.agentRunId ?? turn.turn?.agentRunId;
      if (agentRunId) waitRun(runId, agentRunId);
    },
    [live.runs, turn.turn, waitRun],
  );
  const { onAnswer, onDecide } = useBoardActions();
  const onAbortAll = useMemo(() => (ownWaiting.length > 0 ? () => ownWaiting.forEach(onAbort) : undefined), [ownWaiting, onAbort]);

  const waiting = useMemo(() => boardRuns(scopedRuns), [scopedRuns]);
  const sequentialTools = useMemo(() => new Set((catalogQuery.data?.tools ?? []).filter((t) => t.executionMode === 'sequential').map((t) => t.callableName)), [catalogQuery.data]);
  const explainQueued = useCallback((run: Run, p: PendingToolCall) => queuedBehind(p, run, live.runs, sequentialTools), [live.runs, sequentialTools]);
  const connection = CONNECTION_LABELS[live.connection];
  const turnInfo = turn.turn;
  const inferred = useInferredTypes(turnInfo, catalogQuery.data?.declarations ?? '', call?.result);

  return (
    <div className="flex min-h-screen flex-col xl:h-screen">
      <header className="flex shrink-0 flex-wrap items-center gap-x-3 gap-y-1 border-b border-neutral-800 bg-neutral-900 px-3 py-1.5">
        <h1 className="font-mono text-sm font-semibold text-neutral-100">
          <span className="text-sky-400">{'</>'}</span> Code Mode Playground
        </h1>
        <TurnControls agents={agents} agentId={agentId} onAgentChange={(id) => endTurn(() => setAgentId(id))} model={model} onModelChange={setModel} />
        <span className="font-mono text-[11px] text-neutral-500" data-testid="turn-info">
          {turnInfo ? `turn ${turnInfo.agentRunId} · session ${turnInfo.sessionId}` : turn.preparing ? 'preparing turn…' : 'no turn'}
        </span>
        <Button kind="ghost" testId="new-turn" onClick={() => endTurn(turn.restart)} title="prepare a fresh turn (ends this one and its waiting runs)">
          new turn
        </Button>
        <Button kind="ghost" testId="new-session" onClick={() => endTurn(turn.newSession)} title="start a new session: the session store starts empty">
          new session
        </Button>
        <ThemeToggle />
        <span className="ml-auto flex items-center gap-1.5 text-[11px] text-neutral-400" data-testid="connection" data-state={live.connection}>
          <span className={`inline-block h-2 w-2 rounded-full ${connection.color}`} />
          {connection.text}
        </span>
      </header>
      <LinkNotice linked={initial} agents={agents} />
      <ConnectionBanner state={live.connection} {...(live.error !== undefined ? { error: live.error } : {})} />
      {agentsQuery.error ? (
        <div data-testid="gateway-error" role="alert" className="border-b border-rose-900 bg-rose-950/60 px-3 py-1 text-xs text-rose-200">
          Cannot reach the Gateway: {errorMessage(agentsQuery.error)}
        </div>
      ) : null}
      {turn.error ? (
        <div data-testid="turn-error" role="alert" className="flex items-center gap-2 border-b border-rose-900 bg-rose-950/60 px-3 py-1 text-xs text-rose-200">
          Cannot prepare a turn: {turn.error}
          <Button onClick={turn.restart}>retry</Button>
        </div>
      ) : null}
      {!allTurns ? <LeftBehindNotice runs={leftBehind.runs} onShowAllTurns={() => setAllTurns(true)} onAbort={onAbort} onDismiss={leftBehind.dismiss} /> : null}
      {calls.actionError ? (
        <div role="alert" className="flex items-center gap-2 border-b border-amber-900 bg-amber-950/50 px-3 py-1 text-xs text-amber-200">
          {calls.actionError}
          <Button kind="ghost" onClick={calls.dismissActionError}>
            dismiss
          </Button>
        </div>
      ) : null}
      {/* Below 1280 px the three columns stack, the cell first and full width, then the runs (live state), then the tools,
          and the page scrolls (a 246 px editor at 900 px before). */}
      <main className={`grid min-h-0 flex-1 grid-cols-1 gap-2 p-2 ${gridColumns(columns.collapsed)}`}>
        <SideColumn id="tools" label="tools" side="left" collapsed={columns.collapsed.tools} onToggle={() => columns.toggle('tools')} order="order-3 xl:order-none" className="flex min-h-0 flex-col gap-2">
          <div className="flex max-h-[45vh] min-h-0 flex-col xl:max-h-[45%]">
            <SurfacePanel
              surface={surfaceQuery.data}
              loading={surfaceQuery.isLoading}
              {...(surfaceQuery.error ? { error: errorMessage(surfaceQuery.error) } : {})}
            />
          </div>
          <div className="flex min-h-0 flex-1 flex-col">
            <CatalogPanel
              catalog={catalogQuery.data}
              loading={catalogQuery.isLoading}
              {...(catalogQuery.error ? { error: errorMessage(catalogQuery.error) } : {})}
              clientTools={clientTools}
              onClientToolsChange={setClientTools}
            />
          </div>
        </SideColumn>
        {/* The cell's column: each panel keeps its whole height and the column scrolls (a panel squeezed by flex had cut
            the replay lab to 2 px and laid its header over the result); the result takes the room left, at least its
            minimum, and scrolls inside. */}
        <div data-testid="cell-column" className="order-1 flex flex-col gap-2 xl:order-none xl:min-h-0 xl:overflow-y-auto">
          <EditorPanel
            defaultCode={cell.code}
            language={language}
            onLanguageChange={onLanguageChange}
            typecheck={typecheck}
            onTypecheckChange={setTypecheck}
            typecheckInferred={typecheckInferred}
            onTypecheckInferredChange={settings.setTypecheckInferred}
            executor={executor}
            {...(agent ? { agentExecutor: agent.executor } : {})}
            onExecutorChange={setExecutor}
            declarations={inferred.declarations}
            {...(catalogQuery.data ? { typeFiles: catalogQuery.data.typeFiles } : {})}
            {...(catalogQuery.data ? { cellTypes: catalogQuery.data.cellTypes } : {})}
            deniedTools={deniedTools}
            onCodeChange={onCodeChange}
            onRun={onRunPressed}
            onCompare={compare.start}
            comparing={compare.running}
            running={running}
            canRun={turnInfo !== undefined}
            onReady={onEditorReady}
            {...(settings.exampleId ? { exampleId: settings.exampleId } : {})}
            currentCode={currentCode}
            onExample={onExample}
            shareUrl={cellShareUrl}
          />
          {compare.rows || compare.running || compare.error ? <ComparePanel {...compare} onClose={compare.clear} /> : null}
          {approvalsWhere === 'cell' ? <ApprovalsPrompt approvals={scopedApprovals} onDecide={onDecide} placement="cell" /> : null}
          {/* the head's scroll margin: brought into view from below, the status under it shows too */}
          <div ref={resultRef} className="flex min-h-[220px] flex-1 flex-col xl:min-h-[160px] [&>section>header]:scroll-mt-2 [&>section>header]:scroll-mb-24">
            <ResultPanel
              call={shownResultCall}
              {...(shownMeter ? { meter: shownMeter } : {})}
              {...(shownRun?.replay ? { replay: shownRun.replay } : {})}
              onWait={onWaitFromResult}
              {...(surfaceQuery.data ? { snapshotTtlSeconds: surfaceQuery.data.options.snapshotTtlSeconds } : {})}
              approvalsPending={approvalsInScope(live.approvals, ownRuns).length}
              approvalsWhere={approvalsWhere}
              onShowApprovals={showApprovalsPrompt}
              {...(call?.runId && waitingFor.has(call.runId) ? { waitingFor: call.runId } : {})}
              {...(runningRun && call?.toolCallId === calls.runningToolCallId ? { onStop: () => onAbort(runningRun) } : {})}
            />
          </div>
          <ReplayLabPanel selectedRun={selectedRun} running={running} canRun={turnInfo !== undefined} onRun={runCell} currentCode={currentCode} />
        </div>
        <SideColumn id="runs" label="runs" side="right" collapsed={columns.collapsed.runs} onToggle={() => columns.toggle('runs')} order="order-2 xl:order-none" className="flex min-h-0 flex-col gap-2 pr-0.5 xl:overflow-y-auto [&>*]:shrink-0">
          <label className="flex items-center gap-1.5 px-1 text-[11px] text-neutral-400" data-testid="scope" data-scope={allTurns ? 'all' : 'turn'}>
            <input type="checkbox" data-testid="scope-all-turns" checked={allTurns} onChange={(e) => setAllTurns(e.target.checked)} />
            all turns
            <span className="text-neutral-600">
              {allTurns ? '(approvals, waiting runs, runs and snapshots of every turn)' : '(showing this turn only)'}
            </span>
          </label>
          {approvalsWhere === 'runs' ? <ApprovalsPrompt approvals={scopedApprovals} onDecide={onDecide} placement="runs" /> : null}
          <WaitingBoard
            runs={waiting}
            waitingFor={waitingFor}
            selectedRunId={selectedRunId}
            onWait={onWaitRun}
            onAbort={onAbort}
            onAnswer={onAnswer}
            onAbortAll={onAbortAll}
            queuedBehind={explainQueued}
          />
          <div className="flex max-h-48 min-h-0 flex-col">
            <RunsPanel
              runs={runsListed.runs}
              onSelect={selectRun}
              {...(selectedRunId ? { selectedRunId } : {})}
              {...(runsListed.outOfScope ? { outOfScopeRunId: runsListed.outOfScope.runId } : {})}
            />
          </div>
          <DetailTabs
            runs={scopedRuns}
            scope={allTurns ? 'all turns' : 'this turn'}
            allRuns={live.runs}
            {...(selectedRun ? { selectedRun } : {})}
            {...(selectedRunId ? { selectedRunId } : {})}
            {...(turnInfo ? { sessionId: turnInfo.sessionId } : {})}
            {...(agentId ? { agentId } : {})}
            onCatalogChanged={onCatalogChanged}
            selectRun={selectRun}
          />
        </SideColumn>
      </main>
    </div>
  );
}
