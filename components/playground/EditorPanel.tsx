'use client';
// The editor panel: the cell editor core plus its toolbar (examples, language, typecheck and its inferred-types opt-in, executor, share, run).
import { memo, useState } from 'react';
import { CellEditor } from '../editor/index.ts';
import type { CellEditorApi, CellLanguage, CellMarker, CellTypeWorld, DeniedTool } from '../editor/index.ts';
import { Button, Panel } from '../ui/Panel.tsx';
import { useTheme } from '../ui/theme.ts';
import { cellIsEdited, EXAMPLES, findExample } from './examples.ts';
import { serverTypechecks } from './typecheckRequest.ts';
import type { ExampleCell } from './examples.ts';

export type ExecutorChoice = 'default' | 'quickjs' | 'node' | 'quickjs-emscripten';

// memo: the page re-renders on every live event; this panel only when its own props change (issue 14)
export const EditorPanel = memo(function EditorPanel(props: {
  defaultCode: string;
  language: CellLanguage;
  onLanguageChange: (language: CellLanguage) => void;
  typecheck: boolean;
  onTypecheckChange: (typecheck: boolean) => void;
  /** The server typecheck also uses this turn's inferred output types (applies only while it typechecks). */
  typecheckInferred: boolean;
  onTypecheckInferredChange: (typecheckInferred: boolean) => void;
  executor: ExecutorChoice;
  agentExecutor?: string;
  onExecutorChange: (executor: ExecutorChoice) => void;
  declarations: string;
  /** Each OpenAPI source's named types (the catalog view's typeFiles). */
  typeFiles?: ReadonlyArray<{ path: string; text: string }>;
  /** The server typecheck's world (served with the declarations): the editor's markers are the server's diagnostics. */
  cellTypes?: CellTypeWorld;
  /** Tools the agent's policy denied: a call to one is flagged with its rule. */
  deniedTools: readonly DeniedTool[];
  onCodeChange: (code: string) => void;
  onRun: () => void;
  /** Run the cell on every executor, each in its own run, side by side. */
  onCompare: () => void;
  comparing: boolean;
  running: boolean;
  canRun: boolean;
  onReady: (api: CellEditorApi) => void;
  /** The example the cell was loaded from (the menu shows it), if any. */
  exampleId?: string;
  onExample: (example: ExampleCell) => void;
  /** The editor's code now (asked before an example replaces it). */
  currentCode: () => string;
  shareUrl: () => string;
}) {
  const [markers, setMarkers] = useState<CellMarker[]>([]);
  // How many checks have published their markers, and the length of the source the last one checked: a test
  // waits for the check of the cell it loaded.
  const [checks, setChecks] = useState(0);
  const [checkedChars, setCheckedChars] = useState<number>();
  const [copied, setCopied] = useState(false);
  const { theme } = useTheme();
  // Hints (unused variables, implicit any) stay as faded text in the editor; the list shows real problems.
  const problems = markers.filter((m) => m.severity !== 'hint');
  const errors = problems.filter((m) => m.severity === 'error');
  const effectiveExecutor = props.executor === 'default' ? props.agentExecutor : props.executor;
  const typechecks = serverTypechecks(props);
  return (
    <Panel
      title="Cell"
      testId="editor-panel"
      // stacked (below 1280 px) the column has no height of its own: the editor takes a share of the window
      className="h-[60vh] min-h-[420px] shrink-0 xl:h-[60%] xl:min-h-[480px]"
      bodyClassName="flex min-h-0 flex-col"
      actions={
        <>
          <Button
            kind="ghost"
            testId="share-button"
            title="copy a link that reproduces this cell and the turn's settings (agent, model, executor, typecheck, client tools)"
            onClick={() => {
              const url = props.shareUrl();
              void navigator.clipboard?.writeText(url).catch(() => undefined);
              setCopied(true);
              setTimeout(() => setCopied(false), 1500);
            }}
          >
            {copied ? 'link copied' : 'share'}
          </Button>
          <Button
            testId="compare-button"
            disabled={!props.canRun || props.comparing}
            onClick={props.onCompare}
            title="run this cell on every executor (quickjs, node, quickjs-emscripten), each in its own run, and show the results side by side"
          >
            {props.comparing ? 'Comparing…' : 'Run on all executors'}
          </Button>
          <Button kind="primary" testId="run-button" disabled={!props.canRun || props.running} onClick={props.onRun} title="Ctrl/Cmd+Enter">
            {props.running ? 'Running…' : 'Run ▸'}
          </Button>
        </>
      }
    >
      <div data-testid="editor-toolbar" className="flex shrink-0 flex-wrap items-center gap-1.5 border-b border-neutral-800 px-2 py-1">
        <select
          aria-label="Examples"
          data-testid="example-select"
          className="w-52 rounded border border-neutral-700 bg-neutral-900 px-1 py-0.5 text-[11px]"
          value={findExample(props.exampleId)?.id ?? ''}
          onChange={(e) => {
            const example = findExample(e.target.value);
            if (!example) return;
            // A native confirm: modal, keyboard-reachable and announced, with nothing to build or trap focus in.
            if (cellIsEdited(props.currentCode(), props.exampleId) && !window.confirm(`Replace the edited cell with the example "${example.title}"? Your changes will be lost (copy a share link first to keep them).`)) return;
            props.onExample(example);
          }}
        >
          <option value="">Examples…</option>
          {EXAMPLES.map((x) => (
            <option key={x.id} value={x.id}>
              {x.title}
            </option>
          ))}
        </select>
        <div className="flex overflow-hidden rounded border border-neutral-700 text-[11px]">
          {(['javascript', 'typescript'] as const).map((lang) => (
            <button
              key={lang}
              type="button"
              data-testid={`language-${lang === 'javascript' ? 'js' : 'ts'}`}
              aria-pressed={props.language === lang}
              onClick={() => props.onLanguageChange(lang)}
              className={`px-1.5 py-0.5 ${props.language === lang ? 'bg-sky-700 text-white' : 'bg-neutral-900 text-neutral-400 hover:text-neutral-200'}`}
            >
              {lang === 'javascript' ? 'JS' : 'TS'}
            </button>
          ))}
        </div>
        <label className={`flex items-center gap-1 text-[11px] ${props.language === 'typescript' ? 'text-neutral-300' : 'text-neutral-600'}`} title="typecheck: the Gateway checks the cell against the tool declarations before it runs (TypeScript only)">
          <input
            type="checkbox"
            data-testid="typecheck-toggle"
            disabled={props.language !== 'typescript'}
            checked={props.typecheck && props.language === 'typescript'}
            onChange={(e) => props.onTypecheckChange(e.target.checked)}
          />
          typecheck
        </label>
        <label
          className={`flex items-center gap-1 text-[11px] ${typechecks ? 'text-neutral-300' : 'text-neutral-600'}`}
          title={
            'The server typecheck of this cell also uses the output types inferred from this turn\'s results (shown in the editor\'s hover marked "inferred") ' +
            'for tools that declare no output. Declared types always win. Off by default: inferred types are guesses from what the tools returned so far. ' +
            'Applies with typecheck on a TypeScript cell; the model never sees inferred types.'
          }
        >
          <input
            type="checkbox"
            data-testid="typecheck-inferred-toggle"
            disabled={!typechecks}
            checked={props.typecheckInferred && typechecks}
            onChange={(e) => props.onTypecheckInferredChange(e.target.checked)}
          />
          typecheck uses &quot;inferred&quot; types
        </label>
        <select
          aria-label="Executor"
          data-testid="executor-select"
          className="w-48 rounded border border-neutral-700 bg-neutral-900 px-1 py-0.5 text-[11px]"
          value={props.executor}
          onChange={(e) => props.onExecutorChange(e.target.value as ExecutorChoice)}
          title="executor for this cell"
        >
          <option value="default">agent's executor ({props.agentExecutor ?? '?'})</option>
          <option value="quickjs">quickjs (isolated)</option>
          <option value="node">node (trusted only)</option>
          <option value="quickjs-emscripten">quickjs-emscripten (isolated, live)</option>
        </select>
      </div>
      {effectiveExecutor === 'node' ? (
        <div data-testid="node-warning" className="border-b border-amber-900/60 bg-amber-950/30 px-2 py-1 text-[11px] text-amber-200">
          node executor: trusted execution in node:vm, not a security boundary. Use quickjs for code you did not write.
        </div>
      ) : null}
      <div data-testid="editor" className="min-h-0 flex-1">
        <CellEditor
          className="h-full"
          defaultValue={props.defaultCode}
          language={props.language}
          declarations={props.declarations}
          {...(props.typeFiles ? { typeFiles: props.typeFiles } : {})}
          {...(props.cellTypes ? { cellTypes: props.cellTypes } : {})}
          deniedTools={props.deniedTools}
          onChange={props.onCodeChange}
          onRun={props.onRun}
          onMarkersChange={(next, checkedSource) => {
            setMarkers(next);
            setChecks((n) => n + 1);
            setCheckedChars(checkedSource.length);
          }}
          onReady={props.onReady}
          config={{ theme: theme === 'light' ? 'vs' : 'vs-dark' }}
        />
      </div>
      <div data-testid="editor-problems" data-errors={errors.length} data-checks={checks} data-checked-chars={checkedChars} role="status" aria-label="cell problems" className="max-h-20 shrink-0 overflow-auto border-t border-neutral-800 px-2 py-1 font-mono text-[11px]">
        {problems.length === 0 ? (
          <span className="text-neutral-600">no problems · Ctrl/Cmd+Enter runs the cell</span>
        ) : (
          problems.map((m, i) => (
            <div key={i} data-testid="editor-problem" className={m.severity === 'error' ? 'text-rose-300' : m.severity === 'warning' ? 'text-amber-300' : 'text-neutral-400'}>
              {m.line}:{m.column} {m.message}
              {m.code ? <span className="text-neutral-600"> ts({m.code})</span> : null}
            </div>
          ))
        )}
      </div>
    </Panel>
  );
});
