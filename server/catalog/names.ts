// Callable-name projection (spec: tool names and collisions), host identities and opaque catalog ids.
//
// Rules, in order: an exact JS-safe name keeps its spelling; otherwise invalid identifier characters
// become `_`, and a still-invalid first character or the guest runtime's reserved `__cm_` prefix gets
// `tool_`. Reserved words, reserved guest globals and normalized collisions get `_` plus a short
// suffix hashed from the tool's host identity (source, owner, name), so a name never depends on the
// order tools arrive in.
import { createHash } from 'node:crypto';

/** Base36 characters in a collision suffix: 36^6 (about 2e9) values make an accidental clash between two suffixed names negligible while staying short to type. */
export const NAME_SUFFIX_LENGTH = 6;
/** Hex characters of the sha256 kept in a catalog id: 64 bits, unique within any realistic catalog. */
export const CATALOG_ID_HEX_LENGTH = 16;

/**
 * Prefix of every global the guest runtime keeps for itself: the controller's entry points
 * (`__cm_boot`, `__cm_run`, `__cm_deliver`, `__cm_queued`) and the executors' primitives (`__cm_sync`,
 * Node's `__cm_take_reply`, which the prelude takes and deletes at boot). Some are non-configurable, so a tool projected onto one would break every
 * cell of its turn; reserving the whole prefix also covers names the runtime adds later. A tool whose
 * name starts with it gets the `tool_` prefix (`__cm_run` -> `tool___cm_run`), which no suffix could
 * give it: a suffixed name keeps the prefix.
 */
export const RESERVED_GUEST_PREFIX = '__cm_';

/** ECMAScript reserved words, strict-mode reserved words, and contextual keywords that break as a binding or call target. */
export const JS_RESERVED_WORDS: ReadonlySet<string> = new Set([
  'break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete', 'do', 'else',
  'export', 'extends', 'false', 'finally', 'for', 'function', 'if', 'import', 'in', 'instanceof', 'new',
  'null', 'return', 'super', 'switch', 'this', 'throw', 'true', 'try', 'typeof', 'var', 'void', 'while',
  'with',
  // strict mode and modules (cells may run as modules with top-level await)
  'implements', 'interface', 'let', 'package', 'private', 'protected', 'public', 'static', 'yield',
  'await', 'enum',
  // not bindable in strict code, or ambiguous at a call site
  'arguments', 'eval', 'async',
]);

/**
 * Spec (tool catalog): "The catalog omits code-mode control tools (exec, wait, tool_search_code,
 * tool_search, tool_describe, tool_call)". A tool is a control by its name, not only by its `control`
 * flag: a plugin or client tool named `wait` would otherwise become a guest global that looks like the
 * control. `exec` is absent on purpose: the shell exec tool is cataloged and callable as `exec(...)`
 * (spec: "cataloged like any other tool"); the code-mode exec never reaches the catalog as a tool.
 */
export const CATALOG_CONTROL_NAMES: ReadonlySet<string> = new Set(['wait', 'tool_search_code', 'tool_search', 'tool_describe', 'tool_call']);

/**
 * True when the catalog must omit `tool` as a control: flagged `control`, or a non-MCP tool with a
 * control name. MCP tools live under `MCP.<server>.<name>`, where a name cannot stand for a control, so
 * an MCP server's own `wait` tool stays callable there (docs/decisions.md).
 */
export function isCatalogControl(tool: { name: string; source: string; control?: boolean | undefined }): boolean {
  return tool.control === true || (tool.source !== 'mcp' && CATALOG_CONTROL_NAMES.has(tool.name));
}

/**
 * Globals the guest runtime defines or relies on: a tool never takes these names. Covers the guest
 * API, output and timer helpers, optional namespaces, loader/host names that cells are rejected for
 * using, JS intrinsics, and Object.prototype members reachable on `globalThis`.
 */
export const RESERVED_GUEST_GLOBALS: ReadonlySet<string> = new Set([
  // guest API
  'catalog', 'MCP', 'API', 'nodes', 'skills', 'namespaces', 'results', 'store', 'load', 'yield_control',
  // control names: a tool whose name only normalizes to one (`tool-call`) must not take it
  ...CATALOG_CONTROL_NAMES,
  // output and timer helpers
  'console', 'text', 'json', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval',
  'setImmediate', 'clearImmediate', 'queueMicrotask', 'structuredClone',
  // the clock the guest controller gives every engine (prelude.js: performance.now and timeOrigin)
  'performance',
  // optional Swarm globals (spec: "optional Swarm globals")
  'swarm', 'Swarm',
  // host/loader names cells must not reach (source rules reject them; a tool must not make them callable)
  'globalThis', 'global', 'self', 'window', 'require', 'module', 'exports', 'process', 'Buffer',
  '__dirname', '__filename', 'importScripts',
  // value properties and functions of the global object
  'undefined', 'NaN', 'Infinity', 'eval', 'isNaN', 'isFinite', 'parseInt', 'parseFloat',
  'encodeURI', 'decodeURI', 'encodeURIComponent', 'decodeURIComponent', 'escape', 'unescape',
  // intrinsic constructors and namespaces
  'Object', 'Function', 'Array', 'String', 'Number', 'Boolean', 'Symbol', 'BigInt', 'Date', 'RegExp',
  'Error', 'AggregateError', 'EvalError', 'RangeError', 'ReferenceError', 'SyntaxError', 'TypeError',
  'URIError', 'SuppressedError', 'InternalError',
  'Map', 'Set', 'WeakMap', 'WeakSet', 'WeakRef', 'FinalizationRegistry', 'Promise', 'Proxy', 'Reflect',
  'JSON', 'Math', 'Intl', 'Atomics', 'Iterator', 'AsyncIterator', 'WebAssembly',
  'ArrayBuffer', 'SharedArrayBuffer', 'DataView', 'Int8Array', 'Uint8Array', 'Uint8ClampedArray',
  'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'Float16Array', 'Float32Array',
  'Float64Array', 'BigInt64Array', 'BigUint64Array', 'DisposableStack', 'AsyncDisposableStack',
  // Object.prototype members (visible through globalThis)
  '__proto__', 'constructor', 'hasOwnProperty', 'isPrototypeOf', 'propertyIsEnumerable', 'toString',
  'toLocaleString', 'valueOf', '__defineGetter__', '__defineSetter__', '__lookupGetter__', '__lookupSetter__',
]);

/** Names an `MCP.<server>` namespace or `MCP` itself already uses: `$api()` and Object.prototype members. */
export const RESERVED_MCP_MEMBERS: ReadonlySet<string> = new Set([
  '$api', '__proto__', 'constructor', 'hasOwnProperty', 'isPrototypeOf', 'propertyIsEnumerable',
  'toString', 'toLocaleString', 'valueOf', '__defineGetter__', '__defineSetter__', '__lookupGetter__',
  '__lookupSetter__', 'then',
]);

const IDENTIFIER_START = /[\p{ID_Start}$_]/u;
const IDENTIFIER_PART = /[\p{ID_Continue}$\u200C\u200D]/u;
const IDENTIFIER = /^[\p{ID_Start}$_][\p{ID_Continue}$\u200C\u200D]*$/u;

/** True when `name` is a syntactically valid JavaScript identifier (reserved words included). */
export function isIdentifierName(name: string): boolean {
  return IDENTIFIER.test(name);
}

/** Invalid identifier characters -> `_`; a still-invalid (or missing) first character or the reserved `__cm_` prefix -> `tool_` prefix. */
export function normalizeToolName(name: string): string {
  let out = '';
  for (const ch of name) out += IDENTIFIER_PART.test(ch) ? ch : '_';
  const first = [...out][0];
  if (first === undefined || !IDENTIFIER_START.test(first) || out.startsWith(RESERVED_GUEST_PREFIX)) out = `tool_${out}`;
  return out;
}

/** The host identity a tool's suffix and id derive from: source, owner and exact name, unambiguously joined. */
export function hostIdentity(tool: { source: string; owner?: string | undefined; name: string }): string {
  return JSON.stringify([tool.source, tool.owner ?? null, tool.name]);
}

/** Identity of an MCP server's namespace (its `MCP.<server>` property). */
export function mcpServerIdentity(server: string): string {
  return JSON.stringify(['mcp-server', server]);
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** `_` + base36 characters from sha256(identity); `attempt` re-hashes in the (negligible) case the suffixed name is taken too. */
export function identitySuffix(identity: string, attempt = 0): string {
  const digest = sha256(attempt === 0 ? identity : `${identity}#${attempt}`);
  const n = digest.readBigUInt64BE(0);
  return `_${n.toString(36).padStart(NAME_SUFFIX_LENGTH, '0').slice(-NAME_SUFFIX_LENGTH)}`;
}

/** Opaque host-only catalog id: the same tool set always yields the same ids. Never shown to the guest. */
export function catalogId(identity: string): string {
  return `t_${sha256(identity).toString('hex').slice(0, CATALOG_ID_HEX_LENGTH)}`;
}

export interface NameRequest {
  /** Host identity (see `hostIdentity`): the only input to a suffix. */
  identity: string;
  /** Exact name as the source spells it. */
  name: string;
}

/**
 * Project exact names to callable names within one namespace (guest globals, `MCP`, or one
 * `MCP.<server>`). Exact names must already be unique (see `effectiveTools`). The result does not
 * depend on the order of `requests`: exact safe names claim first, then every other name is decided
 * by its own spelling and identity, never by its position.
 */
export function projectNames(requests: readonly NameRequest[], isReserved: (name: string) => boolean): Map<string, string> {
  const result = new Map<string, string>();
  const taken = new Set<string>();
  const pending: Array<NameRequest & { normalized: string }> = [];

  for (const r of requests) {
    const normalized = normalizeToolName(r.name);
    if (normalized === r.name && !isReserved(r.name)) {
      result.set(r.identity, r.name);
      taken.add(r.name);
    } else {
      pending.push({ ...r, normalized });
    }
  }

  const spellings = new Map<string, number>();
  for (const p of pending) spellings.set(p.normalized, (spellings.get(p.normalized) ?? 0) + 1);

  // Free normalized names first, so a suffixed name can never steal one; both groups in identity order.
  const byIdentity = (a: NameRequest, b: NameRequest) => (a.identity < b.identity ? -1 : a.identity > b.identity ? 1 : 0);
  const free = pending.filter((p) => !isReserved(p.normalized) && !taken.has(p.normalized) && spellings.get(p.normalized) === 1);
  for (const p of free.sort(byIdentity)) {
    result.set(p.identity, p.normalized);
    taken.add(p.normalized);
  }
  const suffixed = pending.filter((p) => !result.has(p.identity)).sort(byIdentity);
  for (const p of suffixed) {
    let attempt = 0;
    let name = `${p.normalized}${identitySuffix(p.identity)}`;
    while (taken.has(name) || isReserved(name)) name = `${p.normalized}${identitySuffix(p.identity, ++attempt)}`;
    result.set(p.identity, name);
    taken.add(name);
  }
  return result;
}

/** Reserved for a guest global: a JS reserved word, a reserved guest global, or a name with the runtime's `__cm_` prefix. */
export function isReservedGlobal(name: string): boolean {
  return JS_RESERVED_WORDS.has(name) || RESERVED_GUEST_GLOBALS.has(name) || name.startsWith(RESERVED_GUEST_PREFIX);
}

/** Reserved for an `MCP` member (server or tool): a JS reserved word or an existing member. */
export function isReservedMcpMember(name: string): boolean {
  return JS_RESERVED_WORDS.has(name) || RESERVED_MCP_MEMBERS.has(name);
}

/**
 * One effective winner per exact name in `key`'s namespace: the later item wins (client tools shadow
 * core ones, as in direct mode) and takes the loser's place nowhere: it keeps its own position.
 */
export function effectiveTools<T>(items: readonly T[], key: (item: T) => string): T[] {
  const last = new Map<string, number>();
  items.forEach((item, i) => last.set(key(item), i));
  return items.filter((item, i) => last.get(key(item)) === i);
}
