// Public types of the cell editor core (what the page around it may use).
import type { CellLanguage } from './share.ts';
import type { CellEditorConfig } from './config.ts';
import type { CellTypeWorld, DeniedTool } from './cellCheck.ts';

export interface CellMarker {
  line: number;
  column: number;
  severity: 'error' | 'warning' | 'info' | 'hint';
  message: string;
  /** TypeScript diagnostic code (`2322`), when the language service gave one. */
  code?: string;
  /** Where the squiggle ends (1-based), when known. */
  endLine?: number;
  endColumn?: number;
  /** Set on a call to a tool the agent's policy denied: the rule that denied it. */
  policyRule?: string;
}

/** Handle the editor hands to `onReady`: the few things a page needs to do to the editor. */
export interface CellEditorApi {
  getValue(): string;
  /** Replaces the whole cell (loading an example); undo still works. */
  setValue(code: string): void;
  focus(): void;
}

export interface CellEditorProps {
  /** Initial code. The editor is uncontrolled: later changes of this prop are ignored (use `api.setValue`). */
  defaultValue: string;
  language: CellLanguage;
  /** Ambient `.d.ts` for the tool globals (from the catalog); replaced whenever it changes. */
  declarations: string;
  /** Each OpenAPI source's named types as its own file (`openapi/github.d.ts`): added one by one, an unchanged one is kept as it is. */
  typeFiles?: ReadonlyArray<{ path: string; text: string }>;
  /** The server typecheck's compiler options and cell wrapper (served with the declarations); no checking until it is known. */
  cellTypes?: CellTypeWorld;
  /** Tools the agent's policy denied: a call to one is flagged with its rule. */
  deniedTools?: readonly DeniedTool[];
  /** Debounced (config.changeDebounceMs) with the full code. */
  onChange?: (code: string) => void;
  /** Ctrl/Cmd+Enter inside the editor. */
  onRun?: () => void;
  /** The cell's markers after each check, with the source they are for (a check of a later edit replaces them). */
  onMarkersChange?: (markers: CellMarker[], checkedSource: string) => void;
  onReady?: (api: CellEditorApi) => void;
  config?: Partial<CellEditorConfig>;
  className?: string;
}
