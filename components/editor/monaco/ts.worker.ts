// Local entry for Monaco's TypeScript language-service worker (hover, completion, diagnostics for cells).
import 'monaco-editor/languages/features/typescript/ts.worker';
