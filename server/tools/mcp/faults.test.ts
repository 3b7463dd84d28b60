// Tests for MCP fault classification: every fault names the server and tool and carries a stable code.
import { describe, it, expect } from 'vitest';
import { ErrorCode, McpError, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { safeParse } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import { ToolError } from '../../errors.ts';
import { callFault, checkCallResult, isTransportFailure, MCP_FAULT_CODES, unavailableFault } from './faults.ts';

const site = { server: 'demo', tool: 'lookup-user' };
const call = { aborted: false, timeoutMs: 1234 };

function zodErrorFor(value: unknown): unknown {
  const parsed = safeParse(CallToolResultSchema, value);
  if (parsed.success) throw new Error('expected the value to be rejected');
  return parsed.error;
}

describe('callFault', () => {
  it('on a connection closed mid-call: mcp_connection_lost naming server and tool, and says to check side effects', () => {
    const fault = callFault(site, new McpError(ErrorCode.ConnectionClosed, 'Connection closed'), call);
    expect(fault).toBeInstanceOf(ToolError);
    expect(fault.code).toBe(MCP_FAULT_CODES.connectionLost);
    expect(fault.message).toContain('MCP server "demo", tool "lookup-user"');
    expect(fault.message).toMatch(/call again/);
  });

  it('on a request timeout: code timeout with the timeout in the message', () => {
    const fault = callFault(site, new McpError(ErrorCode.RequestTimeout, 'Request timed out'), call);
    expect(fault.code).toBe('timeout');
    expect(fault.message).toContain('1234 ms');
  });

  it('on an aborted call: code aborted, whatever error the SDK raised', () => {
    const fault = callFault(site, new Error('This operation was aborted'), { ...call, aborted: true });
    expect(fault.code).toBe(MCP_FAULT_CODES.aborted);
  });

  it('on a result that fails the CallToolResult schema: mcp_malformed_result naming the bad field', () => {
    const fault = callFault(site, zodErrorFor({ content: 'not an array' }), call);
    expect(fault.code).toBe(MCP_FAULT_CODES.malformedResult);
    expect(fault.message).toContain('result.content');
  });

  it('on structured content that violates the output schema: invalid_output naming the field as a path and what was expected', () => {
    const err = new McpError(ErrorCode.InvalidParams, "Structured content does not match the tool's output schema: data/items/0/sum must be number");
    const fault = callFault(site, err, call);
    expect(fault.code).toBe('invalid_output');
    expect(fault.message).toContain('MCP server "demo", tool "lookup-user": invalid output');
    expect(fault.message).toContain('structuredContent.items[0].sum must be number');
    expect(fault.message).not.toContain('MCP error');
  });

  it('on a result without structuredContent from a tool with an output schema: invalid_output', () => {
    const err = new McpError(ErrorCode.InvalidRequest, 'Tool lookup-user has an output schema but did not return structured content');
    expect(callFault(site, err, call).code).toBe('invalid_output');
  });

  it('on a JSON-RPC error from the server: mcp_error quoting it, bounded', () => {
    const fault = callFault(site, new McpError(ErrorCode.InternalError, `boom ${'x'.repeat(5000)}`), call);
    expect(fault.code).toBe(MCP_FAULT_CODES.serverError);
    expect(fault.message).toContain('boom');
    expect(fault.message.length).toBeLessThan(700);
  });

  it('on a transport error (fetch failed): mcp_connection_lost, and it counts as a transport failure', () => {
    const err = new TypeError('fetch failed');
    expect(callFault(site, err, call).code).toBe(MCP_FAULT_CODES.connectionLost);
    expect(isTransportFailure(err)).toBe(true);
    expect(isTransportFailure(zodErrorFor({ content: 1 }))).toBe(false);
    expect(isTransportFailure(new McpError(ErrorCode.RequestTimeout, 'x'))).toBe(false);
  });
});

describe('unavailableFault', () => {
  it('on a failed server: says the gateway stopped retrying, names the config field and the attempts', () => {
    const fault = unavailableFault(site, { state: 'failed', error: 'spawn nope ENOENT', attempts: 3 });
    expect(fault.code).toBe(MCP_FAULT_CODES.unavailable);
    expect(fault.message).toContain('spawn nope ENOENT');
    expect(fault.message).toContain('mcp.servers.demo');
    expect(fault.message).toContain('3 failed attempts');
  });

  it('on a reconnecting server: says to call again in a moment', () => {
    expect(unavailableFault(site, { state: 'disconnected', attempts: 1 }).message).toMatch(/call again in a moment/i);
  });
});

describe('checkCallResult', () => {
  it('on a well-formed result: returns it unchanged', () => {
    const result = { content: [{ type: 'text', text: 'hi' }], structuredContent: { a: 1 }, isError: false };
    expect(checkCallResult(site, result)).toBe(result);
  });

  it.each([
    ['null', null, 'null'],
    ['an array', [], 'an array'],
    ['content not an array', { content: {} }, 'result.content'],
    ['isError not a boolean', { content: [], isError: 'yes' }, 'result.isError'],
    ['structuredContent not an object', { content: [], structuredContent: [1] }, 'result.structuredContent'],
  ])('on %s: throws mcp_malformed_result naming the problem', (_label, value, expected) => {
    let caught: unknown;
    try {
      checkCallResult(site, value);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ToolError);
    expect((caught as ToolError).code).toBe(MCP_FAULT_CODES.malformedResult);
    expect((caught as ToolError).message).toContain(expected);
  });
});
