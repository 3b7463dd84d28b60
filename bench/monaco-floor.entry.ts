// The page bench/monaco-floor.ts bundles for p2's floor: Monaco alone, imported the way the playground's cell editor
// imports it (the whole monaco-editor package), and one editor made with a TypeScript model. Its workers are empty:
// the playground's TypeScript worker starts after its editor shows, so p2 does not wait for it either.
import * as monaco from 'monaco-editor';

const EMPTY_WORKER = URL.createObjectURL(new Blob([''], { type: 'text/javascript' }));
self.MonacoEnvironment = { getWorker: () => new Worker(EMPTY_WORKER) };

const host = document.getElementById('editor');
if (!host) throw new Error('the floor page has no #editor element');
monaco.editor.create(host, { value: 'return 1', language: 'typescript', minimap: { enabled: false } });
