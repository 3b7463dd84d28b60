// Local entry for Monaco's base editor worker: Turbopack cannot resolve the package's own worker URL.
import 'monaco-editor/editor/editor.worker';
