// MCP faults as ToolErrors: what a guest sees when a server is down, crashes mid-call, times out or answers malformed data.
//
// Every message names the server and the tool, says what happened and what the caller can do next.
// The `code` is stable so guest code can branch on it (`err.code === "mcp_unavailable"`).
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ToolError } from '../../errors.ts';
import { INVALID_TOOL_OUTPUT_CODE } from '../validate.ts';

/** Codes an MCP tool failure carries into the guest (besides `invalid_input` and `invalid_output` for schema mismatches). */
export const MCP_FAULT_CODES = {
  /** The server is not connected (still starting, reconnecting, or given up on). */
  unavailable: 'mcp_unavailable',
  /** The connection closed while the call was in flight: the server process exited or crashed. */
  connectionLost: 'mcp_connection_lost',
  /** No answer within the per-call timeout. */
  timeout: 'timeout',
  /** The run (or exec) was aborted while the call was in flight. */
  aborted: 'aborted',
  /** The server answered with something that is not a valid MCP tool result. */
  malformedResult: 'mcp_malformed_result',
  /** The server answered the call with a JSON-RPC error. */
  serverError: 'mcp_error',
} as const;
export type McpFaultCode = (typeof MCP_FAULT_CODES)[keyof typeof MCP_FAULT_CODES];

/** Where a fault happened, as messages name it. */
export interface McpCallSite {
  server: string;
  tool: string;
}

/** Connection state as a fault message needs it (a subset of McpServerView). */
export interface McpStateSummary {
  state: 'connecting' | 'connected' | 'disconnected' | 'failed';
  error?: string;
  attempts: number;
}

/** Longest piece of foreign text (a server's error message) quoted in a fault; servers are not trusted to be brief. */
export const MAX_QUOTED_ERROR_CHARS = 300;

function quote(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > MAX_QUOTED_ERROR_CHARS ? `${oneLine.slice(0, MAX_QUOTED_ERROR_CHARS)}...` : oneLine;
}

function label(site: McpCallSite): string {
  return `MCP server "${site.server}", tool "${site.tool}"`;
}

/** A zod validation error (the SDK checks results with zod; its class is not part of the SDK's API). */
function zodIssues(err: unknown): Array<{ path: unknown[]; message: string }> | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const issues = (err as { issues?: unknown }).issues;
  // zod 4 names it `$ZodError` (core) or `ZodError` (classic), depending on which entry point the SDK parsed with.
  const name = (err as { name?: unknown }).name;
  if ((name !== 'ZodError' && name !== '$ZodError') || !Array.isArray(issues)) return undefined;
  return issues.map((issue: unknown) => {
    const i = issue as { path?: unknown; message?: unknown };
    return { path: Array.isArray(i.path) ? i.path : [], message: typeof i.message === 'string' ? i.message : 'invalid' };
  });
}

function formatPath(path: readonly unknown[]): string {
  let out = 'result';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : `.${String(part)}`;
  return out;
}

/** The SDK's own checks of structuredContent against the tool's outputSchema raise McpErrors with these messages. */
const OUTPUT_SCHEMA_FAULT = /structured content/i;

/** A call was refused before it was sent: the server is not connected. */
export function unavailableFault(site: McpCallSite, summary: McpStateSummary): ToolError {
  const why = summary.error ? ` (${quote(summary.error)})` : '';
  switch (summary.state) {
    case 'failed':
      return new ToolError(
        `${label(site)}: the server is down${why} and the gateway stopped reconnecting after ${summary.attempts} failed attempts. ` +
          `Calls to it cannot succeed until an operator fixes mcp.servers.${site.server} in the gateway config or reconnects it; ` +
          'use other tools or tell the user this MCP server is unavailable.',
        MCP_FAULT_CODES.unavailable,
      );
    case 'connecting':
    case 'disconnected':
      return new ToolError(
        `${label(site)}: the server is not connected yet${why}; the gateway is (re)connecting it. Call again in a moment.`,
        MCP_FAULT_CODES.unavailable,
      );
    case 'connected':
      // Connected but no client: a race with a close; the next call sees the new state.
      return new ToolError(`${label(site)}: the connection is being replaced; call again in a moment.`, MCP_FAULT_CODES.unavailable);
  }
}

/** The SDK's ajv text names fields as JSON pointers under `data` ("data/items/0 must be string"); the guest reads paths. */
function ajvFieldsAsPaths(text: string): string {
  return text.replace(/\bdata((?:\/[^\s,/]+)*)/g, (_, pointer: string) =>
    pointer
      .split('/')
      .slice(1)
      .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : `${path}.${part}`), 'structuredContent'),
  );
}

/**
 * The server's structuredContent contradicts the tool's outputSchema (the SDK checks it, as MCP clients are
 * expected to): the same `invalid_output` every tool source fails with, so the cell never receives it.
 */
export function outputSchemaFault(site: McpCallSite, sdkMessage: string): ToolError {
  const detail = ajvFieldsAsPaths(sdkMessage.replace(/^MCP error -?\d+: /, ''));
  return new ToolError(
    `${label(site)}: invalid output: ${quote(detail)}. The tool's result contradicts its declared output schema, so it was not delivered; ` +
      'this is a fault of the MCP server, not of your input. Check whether the call already had its effect before calling it again, or use another tool.',
    INVALID_TOOL_OUTPUT_CODE,
  );
}

/** The server answered, but not with a usable tool result. */
export function malformedResultFault(site: McpCallSite, detail: string): ToolError {
  return new ToolError(
    `${label(site)}: the server returned a malformed result (${quote(detail)}). This is a fault of the MCP server, not of your input; ` +
      'do not rely on this tool, or report it to the user.',
    MCP_FAULT_CODES.malformedResult,
  );
}

/**
 * Classify an error thrown by an in-flight `callTool`. `aborted` and `timeoutMs` come from the call:
 * an abort wins over whatever the SDK raised for it.
 */
export function callFault(site: McpCallSite, err: unknown, call: { aborted: boolean; timeoutMs: number }): ToolError {
  if (err instanceof ToolError) return err;
  if (call.aborted) return new ToolError(`${label(site)}: the call was aborted because its run was aborted or closed.`, MCP_FAULT_CODES.aborted);
  const issues = zodIssues(err);
  if (issues) {
    const first = issues[0];
    const detail = first ? `${formatPath(first.path)}: ${first.message}` : 'it does not match the MCP CallToolResult shape';
    return malformedResultFault(site, issues.length > 1 ? `${detail}; and ${issues.length - 1} more problems` : detail);
  }
  if (err instanceof McpError) {
    if (err.code === ErrorCode.ConnectionClosed) {
      return new ToolError(
        `${label(site)}: the server closed the connection while this call was in flight (its process exited or crashed). ` +
          'The gateway reconnects it on its own: call again in a moment, but first check whether this call already had its effect.',
        MCP_FAULT_CODES.connectionLost,
      );
    }
    if (err.code === ErrorCode.RequestTimeout) {
      return new ToolError(
        `${label(site)}: no answer within ${call.timeoutMs} ms, so the call was cancelled. Try a smaller request, or call again later.`,
        MCP_FAULT_CODES.timeout,
      );
    }
    if (OUTPUT_SCHEMA_FAULT.test(err.message)) return outputSchemaFault(site, err.message);
    return new ToolError(
      `${label(site)}: the server answered with an error: ${quote(err.message)}. Check the input against MCP.<server>.$api(), or use another tool.`,
      MCP_FAULT_CODES.serverError,
    );
  }
  const message = err instanceof Error ? err.message : String(err);
  return new ToolError(
    `${label(site)}: the connection to the server failed (${quote(message)}); the gateway reconnects it on its own. Call again in a moment.`,
    MCP_FAULT_CODES.connectionLost,
  );
}

/** Errors `callFault` sorts as transport failures: the connection they happened on is no longer trustworthy. */
export function isTransportFailure(err: unknown): boolean {
  if (err instanceof ToolError || zodIssues(err)) return false;
  if (err instanceof McpError) return err.code === ErrorCode.ConnectionClosed;
  return true;
}

export interface McpCallResult {
  content: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
  [key: string]: unknown;
}

/** Guard the shape the guest's declarations promise (McpCallToolResult), whatever the SDK let through. */
export function checkCallResult(site: McpCallSite, value: unknown): McpCallResult {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return throwMalformed(site, `expected an object with a content array; got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`);
  }
  const result = value as Record<string, unknown>;
  if (!Array.isArray(result.content)) return throwMalformed(site, 'result.content must be an array of content blocks');
  if (result.isError !== undefined && typeof result.isError !== 'boolean') return throwMalformed(site, 'result.isError must be a boolean when set');
  if (result.structuredContent !== undefined && (typeof result.structuredContent !== 'object' || result.structuredContent === null || Array.isArray(result.structuredContent))) {
    return throwMalformed(site, 'result.structuredContent must be an object when set');
  }
  return result as McpCallResult;
}

function throwMalformed(site: McpCallSite, detail: string): never {
  throw malformedResultFault(site, detail);
}
