// Redaction of cell source kept in session history and trajectories (spec: "Source in session history").
//
// Works on tokens, not on a full parse, so TypeScript cells and cells with syntax errors are redacted too:
//   1. a string or template literal whose value flows straight into a secret-looking name (`const API_TOKEN = "..."`,
//      `{ password: "..." }`, `headers["x-api-key"] = "..."`, `token ||= "..."`, `let t: string = "..."`) becomes
//      the fixed mask "***"; literals passed to calls (`computeToken("seed")`) and non-literal values
//      (`computeToken()`, `true`, `null`) stay, so the record still shows what the cell computed;
//   2. recognizable tokens (sk-, ghp_, AKIA, xoxb-, JWTs, Bearer values, private key blocks) anywhere in the text;
//   3. the caller's registered secrets and configured patterns.
// Every mask is a fixed string that no rule matches again, so redacting twice gives the same text.
// When even the tokenizer fails (an unterminated string, decorators), a line-based regex does step 1.
import { tokenizer, type Token } from 'acorn';

export const REDACTION_MASK = '***';
const MASKED_LITERAL = `"${REDACTION_MASK}"`;

export interface RedactOptions {
  /** Exact secret values known to the host (API keys it holds); masked wherever they appear. */
  secrets?: readonly string[];
  /** Configured redaction patterns; each match is masked. */
  patterns?: readonly RegExp[];
}

// Matched against the name lowercased with separators removed, at its end: `API_TOKEN`, `githubToken`, `x-api-key`.
// `maxTokens` and `tokenCount` do not match; numbers are never masked.
const SECRET_NAME =
  /(token|secret|secrets|password|passwd|passphrase|apikey|accesskey|privatekey|secretkey|signingkey|encryptionkey|clientsecret|authorization|auth|credential|credentials|cookie|sessionid|bearer)$/;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name.toLowerCase().replace(/[^a-z0-9]/g, ''));
}

const RECOGNIZABLE_TOKENS: ReadonlyArray<{ pattern: RegExp; replace: string }> = [
  { pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g, replace: REDACTION_MASK },
  { pattern: /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}/g, replace: REDACTION_MASK },
  { pattern: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}/g, replace: REDACTION_MASK },
  { pattern: /\bgithub_pat_[A-Za-z0-9_]{20,}/g, replace: REDACTION_MASK },
  { pattern: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g, replace: REDACTION_MASK },
  { pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g, replace: REDACTION_MASK },
  { pattern: /\bAIza[0-9A-Za-z_-]{35}/g, replace: REDACTION_MASK },
  { pattern: /\b[rs]k_(?:live|test)_[0-9A-Za-z]{16,}/g, replace: REDACTION_MASK },
  { pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, replace: REDACTION_MASK },
  { pattern: /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{16,}/g, replace: `$1 ${REDACTION_MASK}` },
];

interface Edit {
  start: number;
  end: number;
  text: string;
}

/** Tokens scanned back over a TypeScript annotation (`let t: Map<string, Secret> = ...`) to find the annotated name; longer annotations fall back to the name before `=`. */
export const MAX_ANNOTATION_TOKENS = 24;

const label = (token: Token | undefined): string | undefined => token?.type.label;
// Acorn sets `value` on every token (the cooked string for strings) but its typings omit it.
const valueOf = (token: Token): unknown => (token as Token & { value?: unknown }).value;

// Keywords that are operators keep a value expression going (`token = typeof x === "y" ? "a" : "b"`).
const OPERATOR_KEYWORDS = new Set(['in', 'instanceof', 'typeof', 'void', 'delete', 'new']);
const GROUP_OPENERS = new Set(['(', '[', '{', '${']);

/** Pairs of bracket and template tokens; index of the opener for every closer, and of the template for every chunk. */
function pairTokens(tokens: readonly Token[]): { openerOf: Map<number, number>; templateOf: Map<number, number> } {
  const openerOf = new Map<number, number>();
  const templateOf = new Map<number, number>();
  const stack: Array<{ kind: 'template' | 'group'; index: number }> = [];
  tokens.forEach((token, index) => {
    const kind = token.type.label;
    const top = stack[stack.length - 1];
    if (kind === '`') {
      if (top?.kind === 'template') {
        openerOf.set(index, top.index);
        stack.pop();
      } else {
        stack.push({ kind: 'template', index });
      }
    } else if (kind === 'template' || kind === 'invalidTemplate') {
      if (top?.kind === 'template') templateOf.set(index, top.index);
    } else if (GROUP_OPENERS.has(kind)) {
      stack.push({ kind: 'group', index });
    } else if (kind === ')' || kind === ']' || kind === '}') {
      if (top?.kind === 'group') {
        openerOf.set(index, top.index);
        stack.pop();
      }
    }
  });
  return { openerOf, templateOf };
}

function nameOf(token: Token | undefined): string | undefined {
  if (token === undefined) return undefined;
  const kind = token.type.label;
  if (kind !== 'name' && kind !== 'string' && token.type.keyword === undefined) return undefined;
  const value = valueOf(token);
  return typeof value === 'string' ? value : undefined;
}

class OwnerFinder {
  constructor(
    private readonly tokens: readonly Token[],
    private readonly openerOf: Map<number, number>,
  ) {}

  /** `x["api_key"]`: the string inside a computed key ending at `close`. */
  private computedKey(close: number): string | undefined {
    const open = this.openerOf.get(close);
    return open !== undefined && close - open === 2 ? nameOf(this.tokens[open + 1]) : undefined;
  }

  private isKeyColon(colon: number): boolean {
    const before = this.tokens[colon - 1];
    if (before === undefined) return false;
    const keyStart = label(before) === ']' ? this.openerOf.get(colon - 1) : colon - 1;
    if (keyStart === undefined) return false;
    if (label(before) !== ']' && nameOf(before) === undefined && label(before) !== 'num') return false;
    const preceding = label(this.tokens[keyStart - 1]);
    return preceding === '{' || preceding === ',';
  }

  private keyName(colon: number): string[] {
    const before = this.tokens[colon - 1];
    const name = label(before) === ']' ? this.computedKey(colon - 1) : nameOf(before);
    return name === undefined ? [] : [name];
  }

  // `token = `, `obj.token = `, `obj["token"] = `, and through a TS annotation `let t: Secret<string> = `.
  private assignedNames(assign: number): string[] {
    const names: string[] = [];
    const target = this.tokens[assign - 1];
    const direct = label(target) === ']' ? this.computedKey(assign - 1) : nameOf(target);
    if (direct !== undefined) names.push(direct);
    for (let i = assign - 1, steps = 0; i > 0 && steps < MAX_ANNOTATION_TOKENS; i--, steps++) {
      const kind = label(this.tokens[i]);
      if (kind === ':') {
        let owner = i - 1;
        if (label(this.tokens[owner]) === '?' || label(this.tokens[owner]) === 'prefix') owner--;
        const name = nameOf(this.tokens[owner]);
        if (name !== undefined) names.push(name);
        break;
      }
      if (kind !== 'name' && kind !== '.' && kind !== '|' && kind !== '&' && kind !== '</>/<=/>=' && kind !== '[' && kind !== ']' && kind !== ',' && kind !== 'string' && kind !== 'num') {
        break;
      }
    }
    return names;
  }

  /** Names the literal starting at token `index` is assigned to; empty when it feeds a call, a condition or nothing. */
  ownerNames(index: number): string[] {
    let i = index - 1;
    while (i >= 0) {
      const token = this.tokens[i];
      if (token === undefined) return [];
      const kind = token.type.label;
      if (kind === ')' || kind === ']' || kind === '}' || (kind === '`' && this.openerOf.has(i))) {
        const open = this.openerOf.get(i);
        if (open === undefined) return [];
        i = open - 1;
        continue;
      }
      if (kind === '=' || kind === '_=') return this.assignedNames(i);
      if (kind === ':') {
        if (this.isKeyColon(i)) return this.keyName(i);
        i--;
        continue;
      }
      if (GROUP_OPENERS.has(kind) || kind === ',' || kind === ';' || kind === '=>' || kind === '`') return [];
      if (token.type.keyword !== undefined && !OPERATOR_KEYWORDS.has(token.type.keyword)) return [];
      i--;
    }
    return [];
  }
}

function literalEdits(code: string): Edit[] {
  const tokens: Token[] = [];
  for (const token of tokenizer(code, { ecmaVersion: 'latest', allowHashBang: true, allowAwaitOutsideFunction: true, allowReturnOutsideFunction: true })) {
    tokens.push(token);
  }
  const { openerOf, templateOf } = pairTokens(tokens);
  const owners = new OwnerFinder(tokens, openerOf);
  const closerOf = new Map<number, number>();
  for (const [close, open] of openerOf) closerOf.set(open, close);
  const chunksOf = new Map<number, number[]>();
  for (const [chunk, template] of templateOf) chunksOf.set(template, [...(chunksOf.get(template) ?? []), chunk]);

  const edits: Edit[] = [];
  tokens.forEach((token, index) => {
    const kind = token.type.label;
    const isTemplateOpen = kind === '`' && closerOf.has(index);
    if (kind !== 'string' && !isTemplateOpen) return;
    if (!owners.ownerNames(index).some(isSecretName)) return;
    if (kind === 'string') {
      if (valueOf(token) !== '') edits.push({ start: token.start, end: token.end, text: MASKED_LITERAL });
      return;
    }
    const close = closerOf.get(index);
    const chunks = (chunksOf.get(index) ?? []).map((chunk) => tokens[chunk]).filter((chunk): chunk is Token => chunk !== undefined);
    const closeToken = close === undefined ? undefined : tokens[close];
    if (closeToken === undefined) return;
    if (chunks.length <= 1) {
      if (closeToken.start - token.end > 0) edits.push({ start: token.start, end: closeToken.end, text: MASKED_LITERAL });
      return;
    }
    // `Bearer ${token}`: mask the literal text, keep the substitutions (they are computations).
    for (const chunk of chunks) if (chunk.end > chunk.start) edits.push({ start: chunk.start, end: chunk.end, text: REDACTION_MASK });
  });
  return edits;
}

// Fallback for source the tokenizer cannot read: `name = "..."`, `name: "..."`, `"name": '...'` on one line;
// an unterminated literal is masked to the end of its line.
const ASSIGNED_LITERAL =
  /([A-Za-z_$][\w$-]*|"[^"\n]*"|'[^'\n]*')(\s*(?::\s*[\w$.<>[\]| ]{1,60}?\s*)?(?:=(?![=>])|:|\+=|\|\|=|\?\?=)\s*)("(?:[^"\\\n]|\\.)*(?:"|$)|'(?:[^'\\\n]|\\.)*(?:'|$)|`(?:[^`\\]|\\.)*(?:`|$))/gm;

function maskAssignedLiteralsByLine(code: string): string {
  return code.replace(ASSIGNED_LITERAL, (whole, name: string, between: string, literal: string) => {
    const bare = name.replace(/^["']|["']$/g, '');
    if (!isSecretName(bare) || literal.length <= 2) return whole;
    return `${name}${between}${MASKED_LITERAL}`;
  });
}

function applyEdits(code: string, edits: Edit[]): string {
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  let out = '';
  let cursor = 0;
  for (const edit of sorted) {
    if (edit.start < cursor) continue;
    out += code.slice(cursor, edit.start) + edit.text;
    cursor = edit.end;
  }
  return out + code.slice(cursor);
}

function globalPattern(pattern: RegExp): RegExp {
  return pattern.global ? pattern : new RegExp(pattern.source, `${pattern.flags}g`);
}

/** Redact cell source for storage: credential literals, recognizable tokens, registered secrets and patterns. */
// Every name step 1 masks for contains one of these once lowercased and stripped to letters and digits
// (the endings SECRET_NAME accepts), so a text without any of them has no literal to mask.
const SECRET_NAME_STEMS = /token|secret|passw|passphrase|key|auth|credential|cookie|sessionid|bearer/;

/** Whether step 1 can find anything: a string or template literal, and a secret-looking name. Most tool inputs and results have neither. */
function mayAssignSecretLiteral(code: string): boolean {
  return /["'`]/.test(code) && SECRET_NAME_STEMS.test(code.toLowerCase().replace(/[^a-z0-9]/g, ''));
}

export function redactSource(code: string, options: RedactOptions = {}): string {
  let out = code;
  if (mayAssignSecretLiteral(code)) {
    try {
      out = applyEdits(code, literalEdits(code));
    } catch {
      out = maskAssignedLiteralsByLine(code);
    }
  }
  for (const { pattern, replace } of RECOGNIZABLE_TOKENS) out = out.replace(pattern, replace);
  for (const secret of options.secrets ?? []) {
    if (secret !== '' && secret !== REDACTION_MASK) out = out.split(secret).join(REDACTION_MASK);
  }
  for (const pattern of options.patterns ?? []) out = out.replace(globalPattern(pattern), REDACTION_MASK);
  return out;
}

/** Registered values shorter than this are not masked: a short value (a port, "true", a region) is ordinary text too. */
export const MIN_SECRET_CHARS = 8;

/**
 * What the Gateway masks beyond the built-in rules (spec 01: "registered secrets, and configured redaction
 * patterns"): the secret values it holds (access tokens, MCP servers' and OpenAPI sources' credentials, the
 * variables the config names) and the config's patterns. Sources added at runtime register theirs as they come.
 */
export class RedactionRegistry {
  private readonly secrets = new Set<string>();
  private sorted: string[] | undefined;

  constructor(readonly patterns: readonly RegExp[] = []) {}

  /** A secret value the host holds; one under MIN_SECRET_CHARS (or not a string) is ignored. An auth header's credential is registered too. */
  register(value: unknown): void {
    if (typeof value !== 'string') return;
    const trimmed = value.trim();
    if (trimmed.length < MIN_SECRET_CHARS || trimmed === REDACTION_MASK) return;
    this.secrets.add(trimmed);
    // "Bearer abc...": the credential alone may appear in a cell too
    const credential = /^(?:Bearer|Basic|Token)\s+(\S+)$/i.exec(trimmed)?.[1];
    if (credential && credential.length >= MIN_SECRET_CHARS) this.secrets.add(credential);
    this.sorted = undefined;
  }

  get size(): number {
    return this.secrets.size;
  }

  /** The options redactSource takes: secrets longest first, so a secret that contains another is masked whole. */
  options(): RedactOptions {
    this.sorted ??= [...this.secrets].sort((a, b) => b.length - a.length);
    return { secrets: this.sorted, patterns: this.patterns };
  }

  /** Cell source as stored (transcript, run views, cassettes): every rule of redactSource, these secrets and patterns too. */
  redact(code: string): string {
    return redactSource(code, this.options());
  }
}
