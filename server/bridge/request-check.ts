// Type checks of one guest bridge request, field by field, before the dispatcher uses any of it.
//
// A request comes out of hostile guest memory as parsed JSON: any field may have any JSON type, and an object
// may carry its own `toString`/`valueOf` keys, so even `String(field)` can throw. The dispatcher reads a
// request only after `checkBridgeRequest` said it has the protocol's shape; a wrong type is the guest's
// fault and is answered with an `invalid_input` reply, never a host exception. Pure: no I/O.
import type { BridgeRequest } from './protocol.ts';
import { describeType } from '../sessions/store-value.ts';

export type RequestCheck = { ok: true; req: BridgeRequest } | { ok: false; error: string };

const OPS = ['call', 'search', 'all', 'describe', 'timer', 'store', 'results', 'yield'] as const;
type Op = (typeof OPS)[number];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isOp(value: unknown): value is Op {
  return typeof value === 'string' && (OPS as readonly string[]).includes(value);
}

/** The request's id when it is a string; '' otherwise (the reply then matches no pending request, which is the guest's loss). */
export function requestIdOf(req: unknown): string {
  return isRecord(req) && typeof req['id'] === 'string' ? req['id'] : '';
}

function wrong(what: string, field: string, expected: string, value: unknown): { ok: false; error: string } {
  return { ok: false, error: `${what}: "${field}" must be ${expected}, got ${describeType(value)}; call it through the documented API` };
}

/** Checks every field the dispatcher reads for the request's op. */
export function checkBridgeRequest(req: unknown): RequestCheck {
  if (!isRecord(req)) return wrong('bridge request', 'request', 'an object', req);
  if (typeof req['id'] !== 'string') return wrong('bridge request', 'id', 'a string', req['id']);
  const op = req['op'];
  if (!isOp(op)) return { ok: false, error: `bridge request: "op" must be one of ${OPS.join(', ')}; call tools through the documented API` };
  switch (op) {
    case 'call': {
      const mcp = req['mcp'];
      if (mcp !== undefined) {
        if (!Array.isArray(mcp) || mcp.length !== 2 || typeof mcp[0] !== 'string' || typeof mcp[1] !== 'string') {
          return wrong('MCP tool call', 'mcp', 'a [server, tool] pair of strings', mcp);
        }
      } else if (typeof req['tool'] !== 'string') {
        return wrong('tool call', 'tool', 'a string', req['tool']);
      }
      // hooks and approvals see the input before the tool validates it: they may rely on one object
      if (!isRecord(req['input'])) {
        const name = Array.isArray(mcp) ? `MCP.${mcp[0] as string}.${mcp[1] as string}` : (req['tool'] as string);
        return { ok: false, error: `${name}: "input" must be one object, got ${describeType(req['input'])}; call it as ${name}({ ...input })` };
      }
      break;
    }
    case 'search': {
      if (typeof req['query'] !== 'string') return wrong('catalog.search', 'query', 'a string', req['query']);
      const limit = req['limit'];
      if (limit !== undefined && limit !== null && typeof limit !== 'number') return wrong('catalog.search', 'limit', 'a number', limit);
      break;
    }
    case 'describe': {
      const server = req['mcpServer'];
      if (server !== undefined) {
        if (typeof server !== 'string') return wrong('$api', 'mcpServer', 'a string', server);
      } else if (typeof req['tool'] !== 'string') {
        return wrong('describe', 'tool', 'a string', req['tool']);
      }
      break;
    }
    case 'timer': {
      const ms = req['ms'];
      if (typeof ms !== 'number' || Number.isNaN(ms)) return wrong('setTimeout', 'ms', 'a number', ms);
      break;
    }
    case 'store': {
      const action = req['action'];
      if (action !== 'set' && action !== 'get') return wrong('store/load', 'action', '"set" or "get"', action);
      const what = action === 'set' ? 'store' : 'load';
      if (typeof req['key'] !== 'string' || req['key'] === '') return wrong(what, 'key', 'a non-empty string', req['key']);
      // undefined json = delete the key
      if (action === 'set' && req['json'] !== undefined && typeof req['json'] !== 'string') return wrong(what, 'json', 'JSON text', req['json']);
      break;
    }
    case 'results': {
      const action = req['action'];
      if (action !== 'save' && action !== 'load' && action !== 'delete') return wrong('results', 'action', '"save", "load" or "delete"', action);
      if (action === 'save') {
        if (req['json'] !== undefined && typeof req['json'] !== 'string') return wrong('results.save', 'json', 'JSON text', req['json']);
      } else if (typeof req['ref'] !== 'string') {
        return wrong(`results.${action}`, 'ref', 'a string', req['ref']);
      }
      break;
    }
    case 'all':
    case 'yield':
      break;
  }
  return { ok: true, req: req as BridgeRequest };
}
