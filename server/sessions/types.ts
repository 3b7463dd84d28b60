// Shapes of persisted session transcripts: entry types, their payloads and the display form (types only).
// sessions/ is a leaf: these unions copy the run's (CodeModeResult['status'], NestedCallRecord's kind and
// status), and gateway/recorder.ts, which writes runs into transcripts, fails to compile if they drift apart.

/** How an exec or wait call ended. */
export type ControlCallStatus = 'completed' | 'waiting' | 'failed';
/** What a nested call was (a tool, an MCP tool, a client tool, or a bridge op). */
export type NestedActivityKind = 'tool' | 'mcp' | 'client' | 'search' | 'describe' | 'timer' | 'store' | 'results' | 'yield';
/** Where a nested call stands; only finished ones (ok, error, canceled) are written. */
export type NestedActivityStatus = 'queued' | 'running' | 'awaiting_approval' | 'awaiting_client' | 'ok' | 'error' | 'canceled';
export type NestedActivityAnswer = 'fork' | 'cassette';

/** One model-level exec or wait call, as the transcript keeps it. Source fields are redacted before they are stored. */
export interface ToolCallPayload {
  tool: 'exec' | 'wait';
  /** The model's tool-call id (or one the Gateway made up when the caller gave none). */
  toolCallId: string;
  agentRunId: string;
  /** exec: redacted `code`, when the call used that alias. */
  code?: string;
  /** exec: redacted `command`, when the call used that alias. */
  command?: string;
  language?: 'javascript' | 'typescript';
  restartSafe?: boolean;
  typecheck?: boolean;
  /** exec: the seed the cell's Math.random (and a logical clock's start) derive from (replay lab). */
  seed?: number;
  /**
   * exec: the clock the cell reads: `real` (the host's), `logical` (an explicitly seeded run: a seed-derived
   * instant of 2025 that moves only when a timer fires, not today's date) or `replayed` (a cassette's readings).
   */
  clock?: 'real' | 'logical' | 'replayed';
  /** wait: the run it continues. */
  runId?: string;
}

/** What an exec or wait call returned: the compact JSON text the model saw, and its status. */
export interface ToolResultPayload {
  tool: 'exec' | 'wait';
  toolCallId: string;
  status: ControlCallStatus;
  runId?: string;
  /** failed results: the spec error code. */
  errorCode?: string;
  /** waiting results: why the cell parked (restart recovery passes again the yields a rebuilt cell had passed). */
  reason?: 'pending_tools' | 'yield';
  /** waiting results: the instance id of the Gateway that holds the run (a wait on another Gateway names it; gateway/presence.ts). */
  gateway?: string;
  /** The result text exactly as the model received it (compact JSON, untrusted-wrapped when flagged). */
  text: string;
}

/** A finished nested call, kept for display only: never part of model replay, never replayed as a tool call. */
export interface NestedActivityPayload {
  runId: string;
  /** The run's exec/wait call that dispatched it (`exec_1`, `wait_2`). */
  parentCallId: string;
  /** The model's tool-call id of that exec/wait call (read from the run's call record; rows written before runs kept it may lack it). */
  parentToolCallId?: string;
  invocationId: string;
  requestId: string;
  tool: string;
  kind: NestedActivityKind;
  status: NestedActivityStatus;
  errorCode?: string;
  inputBytes: number;
  outputBytes?: number;
  startedAt: number;
  endedAt?: number;
  /** Answered without running the tool: by a fork's reply, or from the cassette a replay runs against. */
  answeredBy?: NestedActivityAnswer;
}

/** One committed write set of a completed cell (spec: the `code-mode-store` custom entry). */
export interface StoreEntryPayload {
  runId: string;
  /** Values as the guest's JSON; `networkContent` is the key's provenance at the time it was stored. */
  sets: Array<{ key: string; json: string; networkContent: boolean }>;
  deletes: string[];
}

/** Marks where model context was summarized; everything older stays in the tree and in store replay. */
export interface CompactionPayload {
  summary: string;
  /** Entries along the branch the summary stands for (from the root or the previous compaction). */
  compactedEntries: number;
}

/** Free text a caller keeps in the transcript (user or assistant prose in the playground). */
export interface MessagePayload {
  role: 'user' | 'assistant' | 'system';
  text: string;
}

export interface EntryPayloads {
  'tool-call': ToolCallPayload;
  'tool-result': ToolResultPayload;
  'nested-activity': NestedActivityPayload;
  'code-mode-store': StoreEntryPayload;
  compaction: CompactionPayload;
  message: MessagePayload;
}

export type EntryType = keyof EntryPayloads;

/** One entry of a session transcript tree, as it is read back. */
export type TranscriptEntry = {
  [K in EntryType]: {
    id: string;
    /** null for a root entry. */
    parentId: string | null;
    sessionId: string;
    type: K;
    payload: EntryPayloads[K];
    /** Epoch ms. */
    createdAt: number;
  };
}[EntryType];

export interface SessionSummary {
  sessionId: string;
  /** The current leaf; null for a session with no entries yet (or branched back to the root). */
  leafId: string | null;
  entryCount: number;
  createdAt: number;
  updatedAt: number;
}

/** One key of the session store, as the playground's store panel shows it. */
export interface SessionStoreEntry {
  key: string;
  /** '' when the key is damaged. */
  json: string;
  networkContent: boolean;
  /** Why the committed value cannot be read back; a load of this key fails until a new value is stored. */
  damaged?: string;
}
