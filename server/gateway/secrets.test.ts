// Spec 01 "Source in session history": stored cell source masks registered secrets and configured redaction patterns,
// not only credential literals and recognizable tokens: the config's credentials, the variables it names, its
// patterns, and the credentials of sources added at runtime.
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.ts';
import { parseGatewayConfig } from '../config/load.ts';
import { DEFAULT_OPENAPI_MAX_DOCUMENT_BYTES } from '../config/sources-schema.ts';
import { expectCompleted, testGateway } from '../testing.ts';
import { REPO_ROOT, testConfig } from '../tools/testing.ts';
import { RedactionRegistry, REDACTION_MASK } from '../cell/redact.ts';
import { redactionRegistry } from './secrets.ts';

const ENV = 'CODEMODE_TEST_REDACTION_SECRET';
afterEach(() => {
  delete process.env[ENV];
});

describe('registered secrets and redaction patterns in stored cell source', () => {
  it('on a cell that pastes the secrets the Gateway holds and text a pattern names: the transcript, the run view and the cassette mask them; the cell ran with the real values', async () => {
    process.env[ENV] = 'env-secret-0042-xyz';
    const gw = await testGateway({
      config: {
        redaction: { patterns: ['acct-[0-9]{6}'], secretEnv: [ENV] },
        mcp: {
          servers: {
            billing: { command: 'node', args: ['server.mjs'], env: { BILLING_API_KEY: 'billing-key-7f3a9c', REGION: 'eu-west-1x' } },
            remote: { url: 'https://mcp.example/mcp', headers: { Authorization: 'Bearer remote-token-55aa66bb' } },
          },
        },
        sources: { openapi: { pets: { document: 'https://pets.example/openapi.json', auth: { value: 'pets-api-value-1234' } } }, allowStdioWhenExposed: false, maxDocumentBytes: DEFAULT_OPENAPI_MAX_DOCUMENT_BYTES },
        server: { ...testConfig().server, accessToken: 'access-token-'.padEnd(40, 'z') },
      },
    });
    const t = gw.prepareTurn({});
    const pasted = ['env-secret-0042-xyz', 'billing-key-7f3a9c', 'remote-token-55aa66bb', 'pets-api-value-1234', 'access-token-'.padEnd(40, 'z'), 'acct-123456'];
    // a plain lookup table the cell uses (no secret-looking names, so no built-in rule applies)
    const code = `const values = ${JSON.stringify(pasted)};\nconst region = "eu-west-1x";\nreturn values.map((v) => v.length).concat(region.length);`;
    const r = expectCompleted(await gw.exec(t.agentRunId, { code }));
    expect(r.value).toEqual([...pasted.map((v) => v.length), 10]);
    const runId = r.telemetry.runId!;
    const stored = [
      gw.run(runId)!.code,
      gw.cassette(runId)!.code,
      await (async () => {
        const entry = (await gw.transcript(t.sessionId)).find((e) => e.type === 'tool-call' && e.payload.tool === 'exec');
        return entry?.type === 'tool-call' ? (entry.payload.code ?? '') : '';
      })(),
    ];
    for (const text of stored) {
      for (const secret of pasted) expect(text).not.toContain(secret);
      expect(text).toContain(REDACTION_MASK);
      // computations stay, and a value whose name is not secret-looking (REGION) is not a registered secret
      expect(text).toContain('values.map((v) => v.length)');
      expect(text).toContain('eu-west-1x');
    }
  });

  it('on a source added at runtime: its credentials are registered for the cells after it', async () => {
    const gw = await testGateway({});
    gw.addSource({ kind: 'openapi', name: 'later', documentText: 'openapi: 2.0\n', auth: { header: 'Authorization', value: 'Bearer later-token-9911aa' } }, { exposed: false });
    const t = gw.prepareTurn({});
    const r = expectCompleted(await gw.exec(t.agentRunId, { code: 'const v = ["later-token-9911aa"]; return v[0].length' }));
    expect(gw.run(r.telemetry.runId!)!.code).toBe(`const v = ["${REDACTION_MASK}"]; return v[0].length`);
  });

  it('on the registry: short values are not registered, a bearer value registers its credential too, longer secrets are masked whole first', () => {
    const registry = new RedactionRegistry();
    registry.register('short');
    registry.register(undefined);
    registry.register('Bearer abcdefgh12345678');
    registry.register('abcdefgh12');
    expect(registry.size).toBe(3);
    expect(registry.redact('x = "abcdefgh12345678"; y = "short"')).toBe(`x = "${REDACTION_MASK}"; y = "short"`);
    const fromConfig = redactionRegistry(testConfig({ redaction: { patterns: ['[0-9]{3}-[0-9]{4}'], secretEnv: [] } }), {});
    expect(fromConfig.redact('call 555-0142 now')).toBe(`call ${REDACTION_MASK} now`);
  });

  it('on a config whose pattern does not compile, matches the empty string, or names a bad variable: a config error naming the field', () => {
    const parse = (redaction: unknown) => () => parseGatewayConfig({ redaction }, REPO_ROOT);
    expect(parse({ patterns: ['acct-('] })).toThrow(ConfigError);
    expect(parse({ patterns: ['acct-('] })).toThrow(/redaction\.patterns\[0\]: not a JavaScript regular expression/);
    expect(parse({ patterns: ['x*'] })).toThrow(/matches the empty string/);
    expect(parse({ secretEnv: ['NOT A NAME'] })).toThrow(/redaction\.secretEnv\[0\]/);
    expect(parseGatewayConfig({ redaction: { patterns: ['acct-[0-9]{6}'] } }, REPO_ROOT).redaction).toEqual({ patterns: ['acct-[0-9]{6}'], secretEnv: [] });
  });
});
