'use client';
// Monaco bound to a cell: local monaco-editor (no CDN), local workers, tool declarations in the TS service.
import * as monaco from 'monaco-editor';
import Editor, { loader } from '@monaco-editor/react';
import { useEffect, useRef } from 'react';
import { cellModelPath, defaultConfig } from './config.ts';
import { configureLanguageService, setDeclarations } from './languageService.ts';
import type { CellEditorProps, CellMarker } from './types.ts';

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

function toSeverity(severity: monaco.MarkerSeverity): CellMarker['severity'] {
  if (severity === monaco.MarkerSeverity.Error) return 'error';
  if (severity === monaco.MarkerSeverity.Warning) return 'warning';
  if (severity === monaco.MarkerSeverity.Info) return 'info';
  return 'hint';
}

function markerCode(code: monaco.editor.IMarkerData['code']): string | undefined {
  if (code === undefined) return undefined;
  return typeof code === 'string' ? code : code.value;
}

export default function MonacoCellEditor(props: CellEditorProps) {
  const config = { ...defaultConfig(), ...props.config };
  const editorRef = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  // Callbacks change every render; the editor's actions and listeners read the latest through refs.
  const propsRef = useRef(props);
  propsRef.current = props;
  const debounceRef = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => {
    setDeclarations(monaco, props.declarations, config.declarationsPath);
  }, [props.declarations, config.declarationsPath]);

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
  }, [props.language]);

  useEffect(() => {
    const sub = monaco.editor.onDidChangeMarkers((uris) => {
      const model = editorRef.current?.getModel();
      if (!model || !uris.some((uri) => uri.toString() === model.uri.toString())) return;
      const markers = monaco.editor.getModelMarkers({ resource: model.uri }).map((m) => {
        const marker: CellMarker = { line: m.startLineNumber, column: m.startColumn, severity: toSeverity(m.severity), message: m.message };
        const code = markerCode(m.code);
        if (code !== undefined) marker.code = code;
        return marker;
      });
      propsRef.current.onMarkersChange?.(markers);
    });
    return () => {
      sub.dispose();
      clearTimeout(debounceRef.current);
    };
  }, []);

  return (
    <Editor
      className={props.className}
      theme={config.theme}
      defaultLanguage={props.language}
      defaultPath={cellModelPath(props.language)}
      defaultValue={props.defaultValue}
      loading={<div className="p-3 text-xs text-neutral-400">Loading editor…</div>}
      options={{
        fontSize: config.fontSizePx,
        minimap: { enabled: config.minimap },
        scrollBeyondLastLine: false,
        automaticLayout: true,
        tabSize: 2,
        fixedOverflowWidgets: true,
        renderLineHighlight: 'line',
      }}
      onChange={(value) => {
        clearTimeout(debounceRef.current);
        debounceRef.current = setTimeout(() => propsRef.current.onChange?.(value ?? ''), config.changeDebounceMs);
      }}
      onMount={(editor) => {
        editorRef.current = editor;
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
