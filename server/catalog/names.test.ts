// Tests for callable-name projection, suffixes and ids (spec: tool names and collisions).
import { describe, it, expect } from 'vitest';
import {
  catalogId,
  effectiveTools,
  hostIdentity,
  identitySuffix,
  isReservedGlobal,
  isReservedMcpMember,
  JS_RESERVED_WORDS,
  normalizeToolName,
  projectNames,
  RESERVED_GUEST_GLOBALS,
  CATALOG_CONTROL_NAMES,
  RESERVED_GUEST_PREFIX,
  type NameRequest,
} from './names.ts';

function req(name: string, source = 'core', owner?: string): NameRequest {
  return { identity: hostIdentity({ source, owner, name }), name };
}

function project(requests: NameRequest[]): Record<string, string> {
  const map = projectNames(requests, isReservedGlobal);
  return Object.fromEntries(requests.map((r) => [r.name, map.get(r.identity) ?? '<missing>']));
}

const SUFFIXED = /^[\p{ID_Start}$_][\p{ID_Continue}$]*_[0-9a-z]{6}$/u;

describe('projectNames', () => {
  it('on exact JS-safe names (web_search, sessions_spawn): they stay exact', () => {
    expect(project([req('web_search'), req('sessions_spawn')])).toEqual({ web_search: 'web_search', sessions_spawn: 'sessions_spawn' });
  });

  it('on invalid identifier characters (llm-task, weather.lookup): they become _ when that name is free', () => {
    expect(project([req('llm-task', 'bundled_plugin', 'llm'), req('weather.lookup')])).toEqual({ 'llm-task': 'llm_task', 'weather.lookup': 'weather_lookup' });
  });

  it('on an invalid first character (2fa): gets the tool_ prefix', () => {
    expect(project([req('2fa')])).toEqual({ '2fa': 'tool_2fa' });
    expect(normalizeToolName('')).toBe('tool_');
    expect(normalizeToolName('-x')).toBe('_x');
  });

  it('on a reserved word or reserved guest global (delete, catalog): gets a suffix hashed from the host identity', () => {
    const del = req('delete');
    const cat = req('catalog', 'external_plugin', 'acme');
    const out = project([del, cat]);
    expect(out.delete).toBe(`delete${identitySuffix(del.identity)}`);
    expect(out.catalog).toBe(`catalog${identitySuffix(cat.identity)}`);
    expect(out.delete).toMatch(SUFFIXED);
    expect(out.catalog).toMatch(SUFFIXED);
  });

  it('on strict-mode and contextual keywords (await, yield, let, static, enum, implements, arguments): suffixed', () => {
    const names = ['await', 'yield', 'let', 'static', 'enum', 'implements', 'arguments', 'eval'];
    const out = project(names.map((n) => req(n)));
    for (const n of names) expect(out[n]).toMatch(new RegExp(`^${n}_[0-9a-z]{6}$`));
  });

  it('on intrinsics and guest helpers (Object, JSON, setTimeout, store, results, __proto__, MCP): suffixed', () => {
    const names = ['Object', 'JSON', 'setTimeout', 'store', 'load', 'results', 'MCP', 'API', 'console', 'text', 'json', 'yield_control', 'undefined'];
    const out = project(names.map((n) => req(n)));
    for (const n of names) expect(out[n]).toMatch(new RegExp(`^${n}_[0-9a-z]{6}$`));
    expect(normalizeToolName('__proto__')).toBe('__proto__');
    expect(project([req('__proto__')]).__proto__).toMatch(/^__proto___[0-9a-z]{6}$/);
  });

  it('on the guest runtime\'s own globals and anything with its __cm_ prefix: projected to tool___cm_..., never onto the prefix', () => {
    const names = ['__cm_run', '__cm_boot', '__cm_deliver', '__cm_queued', '__cm_sync', '__cm_take_reply', '__cm_future', '__cm_'];
    const out = project(names.map((n) => req(n, 'client')));
    for (const n of names) expect(out[n]).toBe(`tool_${n}`);
    for (const n of names) expect(isReservedGlobal(n)).toBe(true);
    expect(normalizeToolName('__cm-run')).toBe('tool___cm_run');
    // an exact tool___cm_run claims its spelling first; the runtime-prefixed one is suffixed, still without the prefix
    const clash = project([req('__cm_run', 'client'), req('tool___cm_run', 'client')]);
    expect(clash.tool___cm_run).toBe('tool___cm_run');
    expect(clash.__cm_run).toMatch(/^tool___cm_run_[0-9a-z]{6}$/);
    // names that only resemble the prefix keep their spelling
    expect(project([req('_cm_run'), req('cm_run'), req('__cmrun')])).toEqual({ _cm_run: '_cm_run', cm_run: 'cm_run', __cmrun: '__cmrun' });
    expect(RESERVED_GUEST_PREFIX).toBe('__cm_');
  });

  it('on every catalog control name: reserved as a guest global (one list, CATALOG_CONTROL_NAMES)', () => {
    expect([...CATALOG_CONTROL_NAMES].sort()).toEqual(['tool_call', 'tool_describe', 'tool_search', 'tool_search_code', 'wait']);
    for (const name of CATALOG_CONTROL_NAMES) expect(RESERVED_GUEST_GLOBALS.has(name)).toBe(true);
  });

  it('on the shell exec tool: not reserved, callable as exec', () => {
    expect(RESERVED_GUEST_GLOBALS.has('exec')).toBe(false);
    expect(JS_RESERVED_WORDS.has('exec')).toBe(false);
    expect(project([req('exec')])).toEqual({ exec: 'exec' });
  });

  it('on a normalized collision with an exact name (llm-task vs llm_task): the exact name wins its spelling, the other is suffixed', () => {
    const dashed = req('llm-task', 'bundled_plugin', 'llm');
    const exact = req('llm_task', 'external_plugin', 'other');
    for (const order of [
      [dashed, exact],
      [exact, dashed],
    ]) {
      const out = project(order);
      expect(out.llm_task).toBe('llm_task');
      expect(out['llm-task']).toBe(`llm_task${identitySuffix(dashed.identity)}`);
    }
  });

  it('on two normalized names colliding with each other (llm-task, llm.task): both suffixed, distinct, neither wins by position', () => {
    const out = project([req('llm-task'), req('llm.task')]);
    expect(out['llm-task']).toMatch(/^llm_task_[0-9a-z]{6}$/);
    expect(out['llm.task']).toMatch(/^llm_task_[0-9a-z]{6}$/);
    expect(out['llm-task']).not.toBe(out['llm.task']);
  });

  it('across every ordering of the same tools: the same projection', () => {
    const tools = [req('llm-task'), req('llm_task', 'client'), req('llm.task', 'bundled_plugin', 'p'), req('delete'), req('2fa'), req('web_search'), req('tool_2fa', 'client')];
    const expected = project(tools);
    // the reverse, plus permutations i -> i*k mod 7 (k coprime with 7)
    const orders = [tools.slice().reverse(), ...[2, 3, 5, 6].map((k) => tools.map((_, i) => tools[(i * k) % tools.length] as NameRequest))];
    for (const order of orders) {
      expect(new Set(order).size).toBe(tools.length);
      expect(project(order)).toEqual(expected);
    }
    expect(new Set(Object.values(expected)).size).toBe(tools.length);
    expect(expected.tool_2fa).toBe('tool_2fa');
    expect(expected['2fa']).toMatch(/^tool_2fa_[0-9a-z]{6}$/);
  });

  it('on the same name from different owners: different suffixes (the suffix is the host identity, not the spelling)', () => {
    const a = req('delete', 'external_plugin', 'a');
    const b = req('delete', 'external_plugin', 'b');
    expect(identitySuffix(a.identity)).not.toBe(identitySuffix(b.identity));
    expect(identitySuffix(a.identity)).toBe(identitySuffix(hostIdentity({ source: 'external_plugin', owner: 'a', name: 'delete' })));
  });

  it('on many colliding names: every callable name is unique and a valid identifier', () => {
    const names = ['a-b', 'a.b', 'a b', 'a_b', 'a/b', 'a:b', 'class', 'class-', '0', '00', '_0', 'ünïcode-näme', 'café'];
    const requests = names.map((n, i) => req(n, 'external_plugin', `p${i}`));
    const out = projectNames(requests, isReservedGlobal);
    const values = [...out.values()];
    expect(new Set(values).size).toBe(names.length);
    for (const v of values) {
      expect(v).toMatch(/^[\p{ID_Start}$_][\p{ID_Continue}$]*$/u);
      expect(isReservedGlobal(v)).toBe(false);
    }
    expect(out.get(requests[names.indexOf('café')]?.identity ?? '')).toBe('café');
    expect(out.get(requests[names.indexOf('ünïcode-näme')]?.identity ?? '')).toBe('ünïcode_näme');
  });
});

describe('MCP member names', () => {
  it('on $api, then and reserved words as MCP tool names: escaped within the server', () => {
    const tools = [req('$api', 'mcp', 's'), req('then', 'mcp', 's'), req('delete', 'mcp', 's'), req('get-weather', 'mcp', 's'), req('search', 'mcp', 's')];
    const out = projectNames(tools, isReservedMcpMember);
    const by = Object.fromEntries(tools.map((t) => [t.name, out.get(t.identity)]));
    expect(by.$api).toMatch(/^\$api_[0-9a-z]{6}$/);
    expect(by.then).toMatch(/^then_[0-9a-z]{6}$/);
    expect(by.delete).toMatch(/^delete_[0-9a-z]{6}$/);
    expect(by['get-weather']).toBe('get_weather');
    expect(by.search).toBe('search');
    // guest globals are not reserved inside a server namespace
    expect(isReservedMcpMember('catalog')).toBe(false);
  });
});

describe('effectiveTools', () => {
  it('on two tools with the same exact name: the later one wins and the loser is dropped', () => {
    const tools = [
      { name: 'read', source: 'core' },
      { name: 'grep', source: 'core' },
      { name: 'read', source: 'client' },
    ];
    expect(effectiveTools(tools, (t) => t.name)).toEqual([
      { name: 'grep', source: 'core' },
      { name: 'read', source: 'client' },
    ]);
  });
});

describe('catalogId', () => {
  it('on the same identity: the same opaque id; on another: a different one', () => {
    const id = catalogId(hostIdentity({ source: 'core', name: 'read' }));
    expect(id).toMatch(/^t_[0-9a-f]{16}$/);
    expect(catalogId(hostIdentity({ source: 'core', name: 'read' }))).toBe(id);
    expect(catalogId(hostIdentity({ source: 'client', name: 'read' }))).not.toBe(id);
  });

  it('on identities that differ only in where the separator falls: different ids', () => {
    expect(hostIdentity({ source: 'core', owner: 'a:b', name: 'c' })).not.toBe(hostIdentity({ source: 'core', owner: 'a', name: 'b:c' }));
  });
});
