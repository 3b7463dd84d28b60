// monaco-editor ships no types for its TypeScript worker module; the corpus test (monacoWorker.testing.ts) runs it in Node.
declare module 'monaco-editor/languages/features/typescript/tsWorker.js' {
  export const TypeScriptWorker: unknown;
}
