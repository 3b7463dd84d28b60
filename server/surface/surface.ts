// The model surface: the exec and wait tool definitions, and which tools a model sees with code mode on or off.
//
// Off (disabled, or no tools for the run): every effective tool, unchanged, no enforcement.
// On: exec, wait, then the direct-only tools, whose structured results cannot cross the bridge. Everything
// else lives in the hidden catalog. Tool Search control tools are hidden, and so is the shell `exec` tool:
// its name belongs to the code-mode exec, and guest code calls it as `exec(...)` instead.
import { selfContainedSchema } from '../tools/schema-defs.ts';
import type { CodeModeOptions } from '../config/types.ts';
import type { JsonSchema, ToolDefinition } from '../tools/types.ts';
import { CATALOG_CONTROL_NAMES } from '../catalog/names.ts';

/** A tool as a model would be given it (name, description, JSON Schema input). */
export interface ModelTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

/** What a model sees for a turn: code mode on or off, why, and its tools. */
export interface SurfaceView {
  codeMode: boolean;
  /** Why code mode is or is not active (which precedence level decided). */
  reason: string;
  tools: ModelTool[];
  /** The exec description including its quick index (code mode only). */
  execDescription?: string;
  options: CodeModeOptions;
}

export const EXEC_TOOL_NAME = 'exec';
export const WAIT_TOOL_NAME = 'wait';

/** Code-mode and Tool Search controls (spec: tool catalog): the catalog's (with `wait`) plus `exec`. None of them is ever a direct-only tool of an active run. */
export const CONTROL_TOOL_NAMES: readonly string[] = Object.freeze([EXEC_TOOL_NAME, ...CATALOG_CONTROL_NAMES]);

/** What the surface needs of an activation (server/config/activation.ts produces it). */
export interface SurfaceActivation {
  active: boolean;
  options: CodeModeOptions;
  decidedBy: string;
}

export interface BuildSurfaceInput {
  activation: SurfaceActivation;
  /** Effective tools after policy, in catalog order (core, plugin, MCP, client). */
  tools: readonly ToolDefinition[];
  /** renderQuickIndex output for the run's catalog. */
  quickIndex: string;
  /** The run asked for no tools at all. */
  disableTools?: boolean;
}

const EXEC_INPUT_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    code: {
      type: 'string',
      description: 'The JavaScript or TypeScript cell to run. `return` a JSON-compatible value: it becomes the result.',
    },
    command: {
      type: 'string',
      description: 'Alias of code for hook policies and trusted rewrites. Use code; if both are set they must match.',
    },
    // A flat string enum, never oneOf/anyOf: some providers reject union shapes in tool schemas.
    language: {
      type: 'string',
      enum: ['javascript', 'typescript'],
      description: 'Language of the cell; default "javascript". TypeScript is transpiled before it runs.',
    },
    restartSafe: {
      type: 'boolean',
      description: 'Leave it out. Set true only when the gateway explicitly asks to replay a cell after a restart.',
    },
    typecheck: {
      type: 'boolean',
      description: 'With language "typescript": check the cell against the tool declarations before anything runs.',
    },
  },
  additionalProperties: false,
};

const WAIT_INPUT_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    runId: { type: 'string', description: 'The runId of a result with status "waiting".' },
  },
  required: ['runId'],
  additionalProperties: false,
};

function toModelTool(tool: ToolDefinition): ModelTool {
  // a schema that names its source's schemas carries the ones it reaches: a model provider resolves nothing else
  return { name: tool.name, description: tool.description, inputSchema: selfContainedSchema(tool.inputSchema, tool.schemaDefs) };
}

/** One tool per exact name; a later definition (a client tool) takes the earlier one's place, as in direct mode. */
function oneWinnerPerName(tools: readonly ToolDefinition[]): ToolDefinition[] {
  const byName = new Map<string, ToolDefinition>();
  for (const tool of tools) byName.set(tool.name, tool);
  return [...byName.values()];
}

/** Every effective tool as direct tool calling would put it on the surface (the token meter's comparison). */
export function directSurfaceTools(tools: readonly ToolDefinition[]): ModelTool[] {
  return oneWinnerPerName(tools).map(toModelTool);
}

/** The exec description: how the guest API works in a few lines, the run's limits, then the quick index. */
export function execDescription(quickIndex: string, options: CodeModeOptions): string {
  const lines = [
    'Run a JavaScript cell (or TypeScript with language: "typescript") in a sandbox and get one JSON result. Tools are not offered directly: call them from the cell.',
    '- Every tool is an async global: `const hits = await web_search({ query: "x" })`. Await independent calls together with Promise.all.',
    '- Discover tools: `await catalog.search("weather", { limit: 5 })` and `await catalog.all()` return callable handles (callableName, description, source); `await handle.describe()` gives the full declaration.',
    '- Declarations: `API.list("tools")`, `API.read("tools/<name>.d.ts")`. MCP tools: `API.read("mcp/<server>.d.ts")`, then `await MCP.<server>.<tool>({ ...input })`; `MCP.<server>.$api()` lists them too.',
    '- Big intermediate data: `const { ref } = await results.save(value)`, later `await results.load(ref)`. Small values for later cells: `await store(key, value)`, `await load(key)`.',
    '- `text(v)`, `json(v)` and console.* add output. `return` a JSON-compatible value: it is the result.',
    `- A call still pending after ${options.timeoutMs} ms, or \`await yield_control("why")\`, returns status "waiting" with a runId: call ${WAIT_TOOL_NAME}({ runId }) to continue the same cell.`,
    `- Limits: ${options.maxPendingToolCalls} tool calls in flight, ${options.maxOutputBytes} bytes of output. No import, require, fetch, process, file system or network: use the tools.`,
    '- Failed tool calls throw catchable errors with a `code`; check what earlier calls did before running a cell again.',
    '',
    'Tools:',
    quickIndex,
  ];
  return lines.join('\n');
}

export function execToolDefinition(quickIndex: string, options: CodeModeOptions): ModelTool {
  return { name: EXEC_TOOL_NAME, description: execDescription(quickIndex, options), inputSchema: EXEC_INPUT_SCHEMA };
}

export function waitToolDefinition(): ModelTool {
  return {
    name: WAIT_TOOL_NAME,
    description:
      'Continue a code-mode cell that returned status "waiting", once. Pass its runId. Returns the same result shape as exec: completed, failed, or waiting again.',
    inputSchema: WAIT_INPUT_SCHEMA,
  };
}

// Not isCatalogControl: the model surface is one flat namespace, so an MCP tool named `wait` would shadow the
// control here, while in the catalog it lives under MCP.<server>; and `exec` is a control only on the surface.
function isControl(tool: ToolDefinition): boolean {
  return tool.control === true || CONTROL_TOOL_NAMES.includes(tool.name);
}

/** The tool list a model gets for one run, and why. */
export function buildModelSurface({ activation, tools, quickIndex, disableTools = false }: BuildSurfaceInput): SurfaceView {
  const { options } = activation;
  if (disableTools) {
    return { codeMode: false, reason: 'disableTools: the run has no tools, so code mode does not engage', tools: [], options };
  }
  const effective = oneWinnerPerName(tools);
  if (effective.length === 0) {
    return {
      codeMode: false,
      reason: 'no effective tools for this run (an empty allowlist or everything denied), so code mode does not engage',
      tools: [],
      options,
    };
  }
  if (!activation.active) {
    return { codeMode: false, reason: activation.decidedBy, tools: effective.map(toModelTool), options };
  }
  const exec = execToolDefinition(quickIndex, options);
  const direct = effective.filter((tool) => tool.directOnly === true && !isControl(tool)).map(toModelTool);
  return {
    codeMode: true,
    reason: activation.decidedBy,
    tools: [exec, waitToolDefinition(), ...direct],
    execDescription: exec.description,
    options,
  };
}
