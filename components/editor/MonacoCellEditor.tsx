'use client';
// Monaco bound to a cell: local monaco-editor (no CDN), local workers, tool declarations in the TS service, and
// markers from the server typecheck's world (cellCheck.ts: the cell checked inside its wrapper on a hidden model).
import * as monaco from 'monaco-editor';
import Editor, { loader } from '@monaco-editor/react';
import { useEffect, useMemo, useRef } from 'react';
import { cellModelPath, defaultConfig } from './config.ts';
import { cellMarkers, checkModelPath, checkText, type RawDiagnostic } from './cellCheck.ts';
import { configureLanguageService, setCellTypes, setDeclarations, setTypeFiles } from './languageService.ts';
import type { CellEditorProps } from './types.ts';

// Under Turbopack the package's own worker URLs do not resolve: create both workers from local entries.
self.MonacoEnvironment = {
  getWorker(_workerId: string, label: string) {
    if (label === 'typescript' || label === 'javascript') {
      return new Worker(new URL('./monaco/ts.worker.ts', import.meta.url), { type: 'module' });
    }
    return new Worker(new URL('./monaco/editor.worker.ts', import.meta.url), { type: 'module' });
  },
};
// @monaco-editor/react would fetch Monaco from a CDN; these machines have no internet.
loader.config({ monaco });
configureLanguageService(monaco, defaultConfig());

const MARKER_OWNER = 'codemode';

/** Checks the cell in `editor` as the server would; publishes markers unless a newer check started meanwhile. */
async function checkCell(editor: monaco.editor.IStandaloneCodeEditor, props: CellEditorProps, isCurrent: () => boolean): Promise<void> {
  const model = editor.getModel();
  const world = props.cellTypes;
  if (!model || !world) return;
  const source = model.getValue();
  const uri = monaco.Uri.parse(checkModelPath(props.language));
  const text = checkText(world, source);
  const hidden = monaco.editor.getModel(uri) ?? monaco.editor.createModel(text, props.language, uri);
  if (hidden.getValue() !== text) hidden.setValue(text);
  const getWorker = props.language === 'typescript' ? await monaco.typescript.getTypeScriptWorker() : await monaco.typescript.getJavaScriptWorker();
  const client = await getWorker(uri);
  const found = [...(await client.getSyntacticDiagnostics(uri.toString())), ...(await client.getSemanticDiagnostics(uri.toString()))] as RawDiagnostic[];
  if (!isCurrent() || model.isDisposed() || model.getValue() !== source) return;
  const markers = cellMarkers(found, source, world, props.deniedTools ?? []);
  monaco.editor.setModelMarkers(
    model,
    MARKER_OWNER,
    markers.map((m) => ({
      startLineNumber: m.line,
      startColumn: m.column,
      endLineNumber: m.endLine ?? m.line,
      endColumn: m.endColumn ?? m.column,
      severity: monaco.MarkerSeverity.Error,
      message: m.message,
      ...(m.code !== undefined ? { code: m.code } : {}),
      source: m.policyRule !== undefined ? 'policy' : 'ts',
    })),
  );
  props.onMarkersChange?.(markers, source);
}

export default function MonacoCellEditor(props: CellEditorProps) {
  const config = { ...defaultConfig(), ...props.config };
  const editorRef = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  // Callbacks change every render; the editor's actions and listeners read the latest through refs.
  const propsRef = useRef(props);
  propsRef.current = props;
  const debounceRef = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const checkTimerRef = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const checkSeqRef = useRef(0);
  // @monaco-editor/react calls editor.updateOptions whenever this object is a new one: keep it while its inputs hold
  const options = useMemo<monaco.editor.IStandaloneEditorConstructionOptions>(
    () => ({
      fontSize: config.fontSizePx,
      minimap: { enabled: config.minimap },
      scrollBeyondLastLine: false,
      automaticLayout: true,
      tabSize: 2,
      fixedOverflowWidgets: true,
      renderLineHighlight: 'line',
    }),
    [config.fontSizePx, config.minimap],
  );

  /** A check soon (edits arrive in bursts); only the latest one publishes its markers. */
  const scheduleCheck = (delayMs: number) => {
    clearTimeout(checkTimerRef.current);
    checkTimerRef.current = setTimeout(() => {
      const editor = editorRef.current;
      if (!editor) return;
      const seq = ++checkSeqRef.current;
      void checkCell(editor, propsRef.current, () => seq === checkSeqRef.current).catch(() => undefined);
    }, delayMs);
  };

  useEffect(() => {
    setTypeFiles(monaco, props.typeFiles ?? [], config.declarationsPath.replace(/[^/]*$/, ''));
    setDeclarations(monaco, props.declarations, config.declarationsPath);
    if (props.cellTypes) setCellTypes(monaco, props.cellTypes);
    scheduleCheck(config.checkDebounceMs);
    // scheduleCheck reads the latest props through refs
  }, [props.declarations, props.typeFiles, props.cellTypes, props.deniedTools, config.declarationsPath]);

  // Switching language moves the text to a model whose extension gives the right semantics.
  useEffect(() => {
    const editor = editorRef.current;
    if (!editor) return;
    const path = cellModelPath(props.language);
    const current = editor.getModel();
    if (!current || current.uri.toString() === monaco.Uri.parse(path).toString()) return;
    const model = monaco.editor.createModel(current.getValue(), props.language, monaco.Uri.parse(path));
    editor.setModel(model);
    current.dispose();
    scheduleCheck(0);
    // scheduleCheck reads the latest props through refs
  }, [props.language]);

  useEffect(
    () => () => {
      clearTimeout(debounceRef.current);
      clearTimeout(checkTimerRef.current);
      checkSeqRef.current++;
      for (const lang of ['javascript', 'typescript'] as const) monaco.editor.getModel(monaco.Uri.parse(checkModelPath(lang)))?.dispose();
    },
    [],
  );

  return (
    <Editor
      className={props.className}
      theme={config.theme}
      defaultLanguage={props.language}
      defaultPath={cellModelPath(props.language)}
      defaultValue={props.defaultValue}
      loading={<div className="p-3 text-xs text-neutral-400">Loading editor…</div>}
      options={options}
      onChange={(value) => {
        clearTimeout(debounceRef.current);
        debounceRef.current = setTimeout(() => propsRef.current.onChange?.(value ?? ''), config.changeDebounceMs);
        scheduleCheck(config.checkDebounceMs);
      }}
      onMount={(editor) => {
        editorRef.current = editor;
        scheduleCheck(0);
        editor.addAction({
          id: 'codemode.run',
          label: 'Run cell',
          keybindings: [monaco.KeyMod.CtrlCmd | monaco.KeyCode.Enter],
          run: () => propsRef.current.onRun?.(),
        });
        propsRef.current.onReady?.({
          getValue: () => editor.getValue(),
          setValue: (code) => {
            const model = editor.getModel();
            if (!model) return;
            editor.pushUndoStop();
            editor.executeEdits('codemode.setValue', [{ range: model.getFullModelRange(), text: code }]);
            editor.pushUndoStop();
            editor.setScrollTop(0);
          },
          focus: () => editor.focus(),
        });
      }}
    />
  );
}
