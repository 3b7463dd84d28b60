// Tests for redaction of cell source kept in history: credential literals, recognizable tokens, stability.
import { describe, expect, it } from 'vitest';
import { isSecretName, redactSource } from './redact.ts';

// Built at runtime so the repository itself holds no token-shaped literals.
const OPENAI_KEY = ['sk', 'proj', 'A1b2C3d4E5f6G7h8I9j0K1l2'].join('-');
const GITHUB_TOKEN = `ghp_${'a1B2c3D4e5'.repeat(4)}`;
const AWS_KEY = `AKIA${'IOSFODNN7EXAMPLE'}`;
const SLACK_TOKEN = ['xoxb', '123456789012', 'abcdefABCDEF'].join('-');
const JWT = ['eyJhbGciOiJIUzI1NiJ9', 'eyJzdWIiOiIxMjM0NTY3ODkwIn0', 'dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'].join('.');

describe('redactSource', () => {
  it('on a credential literal assigned to a secret-looking name: masks it with "***"', () => {
    expect(redactSource('const apiKey = "abc123";')).toBe('const apiKey = "***";');
    expect(redactSource("let DB_PASSWORD = 'hunter2';")).toBe('let DB_PASSWORD = "***";');
    expect(redactSource('const githubToken = `plain`;')).toBe('const githubToken = "***";');
  });

  it('on a computation assigned to a secret name: keeps it', () => {
    const code = 'const API_TOKEN = computeToken();\nconst secret = await load("s");\nconst token = makeToken("seed");';
    expect(redactSource(code)).toBe(code);
  });

  it('on boolean, null and numeric initializers: keeps them', () => {
    const code = 'const token = null;\nlet secret = true;\nconst password = false;\nconst maxTokens = 1000;';
    expect(redactSource(code)).toBe(code);
  });

  it('on object properties, quoted and computed keys: masks their literals', () => {
    expect(redactSource('const h = { Authorization: "Basic dXNlcjpw", "x-api-key": \'k1\', other: "keep" };')).toBe(
      'const h = { Authorization: "***", "x-api-key": "***", other: "keep" };',
    );
    expect(redactSource('headers["client_secret"] = "cs";')).toBe('headers["client_secret"] = "***";');
  });

  it('on member assignments and compound operators: masks the literal', () => {
    expect(redactSource('config.auth.password = "p";\ntoken ||= "fallback";')).toBe('config.auth.password = "***";\ntoken ||= "***";');
  });

  it('on a fallback or conditional literal: masks both branches', () => {
    expect(redactSource('const token = env.TOKEN || "dev-token";')).toBe('const token = env.TOKEN || "***";');
    expect(redactSource('const secret = prod ? "a" : "b";')).toBe('const secret = prod ? "***" : "***";');
  });

  it('on a TypeScript annotation between name and value: masks the literal', () => {
    expect(redactSource('const apiKey: string = "abc";\nlet x: string = "public";')).toBe('const apiKey: string = "***";\nlet x: string = "public";');
  });

  it('on a template with substitutions: masks the literal text and keeps the computation', () => {
    expect(redactSource('const authorization = `Bearer ${token}`;')).toBe('const authorization = `***${token}`;');
  });

  it('on literals for ordinary names, call arguments and comparisons: keeps them', () => {
    const code = 'const path = "notes.txt";\nawait read({ path: "a" });\nif (mode === "token") store("key", "value");';
    expect(redactSource(code)).toBe(code);
  });

  it('on recognizable tokens anywhere in strings: masks them', () => {
    const code = `await fetchIt({ url: "https://x", key: "${OPENAI_KEY}" });\nconst s = "${GITHUB_TOKEN} ${AWS_KEY}";\nlog("${SLACK_TOKEN}", '${JWT}');`;
    const out = redactSource(code);
    for (const secret of [OPENAI_KEY, GITHUB_TOKEN, AWS_KEY, SLACK_TOKEN, JWT]) expect(out).not.toContain(secret);
    expect(out).toContain('url: "https://x"');
    expect(out).toContain('key: "***"');
  });

  it('on a Bearer header value in a plain string: masks the value, keeps the scheme', () => {
    expect(redactSource('call({ header: "Bearer abcdefghijklmnopqrstuvwx" })')).toBe('call({ header: "Bearer ***" })');
  });

  it('on registered secrets and configured patterns: masks them', () => {
    const out = redactSource('const a = "my-own-secret-value"; const b = "ID-12345";', { secrets: ['my-own-secret-value'], patterns: [/ID-\d+/] });
    expect(out).toBe('const a = "***"; const b = "***";');
  });

  it('on source the tokenizer cannot read: still masks credential assignments', () => {
    const code = '@decorator\nconst token = "abc";\nconst password = "unterminated\nconst ok = 1;';
    expect(redactSource(code)).toBe('@decorator\nconst token = "***";\nconst password = "***"\nconst ok = 1;');
  });

  it('on any input: redacting twice gives the same text', () => {
    const samples = [
      'const apiKey = "abc123";\nconst h = { Authorization: `Bearer ${t}` };',
      `const s = "${OPENAI_KEY}"; const password: string = 'x';`,
      '@d\nconst token = "abc"; const secret = "open',
      'const API_TOKEN = computeToken(); const enabled = true;',
    ];
    for (const sample of samples) {
      const once = redactSource(sample);
      expect(redactSource(once)).toBe(once);
    }
  });
});

describe('isSecretName', () => {
  it('on secret-looking names: true; on look-alikes: false', () => {
    for (const name of ['API_TOKEN', 'githubToken', 'x-api-key', 'clientSecret', 'Authorization', 'db_password', 'credentials']) {
      expect(isSecretName(name)).toBe(true);
    }
    for (const name of ['maxTokens', 'tokenCount', 'author', 'path', 'key', 'passwordLength']) {
      expect(isSecretName(name)).toBe(false);
    }
  });
});

describe('redactSource: the shortcut past the tokenizer', () => {
  it('on names split inside their secret word (PASS_WORD, Api-Key, SESSION_ID): still masks their literals', () => {
    expect(redactSource('const PASS_WORD = "hunter2"; headers["Api-Key"] = "k1"; o = { SESSION_ID: "s1" }')).toBe(
      'const PASS_WORD = "***"; headers["Api-Key"] = "***"; o = { SESSION_ID: "***" }',
    );
  });

  it('on every secret name the rule accepts, written in JSON: masks the value (no name slips past the shortcut)', () => {
    const names = ['token', 'secrets', 'password', 'passwd', 'passphrase', 'apikey', 'accessKey', 'private_key', 'secretKey', 'signingKey', 'encryption-key', 'client_secret', 'authorization', 'auth', 'credential', 'credentials', 'cookie', 'sessionId', 'bearer'];
    for (const name of names) {
      expect(isSecretName(name), name).toBe(true);
      expect(redactSource(JSON.stringify({ [name]: 'value-1' })), name).toBe(`{"${name}":"***"}`);
    }
  });

  it('on text without a quote or without a secret-looking word: returns it as it is, recognizable tokens still masked', () => {
    expect(redactSource('{"city":"Paris","days":3}')).toBe('{"city":"Paris","days":3}');
    expect(redactSource('token = 42; x = null')).toBe('token = 42; x = null');
    expect(redactSource('{"note":"use sk-ant-abcdefghijklmnop1234"}')).toBe('{"note":"use ***"}');
  });
});
