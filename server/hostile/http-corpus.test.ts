// The hostile HTTP corpus (http/) against a real playground server on port 0 with small shares: every defense holds, and a normal client (keyless and keyed) works after each attack.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApiKey } from '../access/owners.ts';
import { createGateway, type Gateway } from '../gateway.ts';
import { startPlaygroundServer, type PlaygroundServer } from '../http/server.ts';
import { NAVIGATION_HEADERS, sendRaw } from '../http/testing.ts';
import { REPO_ROOT } from '../tools/testing.ts';
import { HOSTILE_MCP_IDLE_SECONDS, HOSTILE_SHARES, loadHttpCorpus, type HttpTarget } from './http-corpus.ts';
import { checkOutcome, PROBE_EXPECT, PROBE_FILE } from './corpus.ts';
import { api, type Turn } from './http/kit.ts';

/** The corpus holds a child `codemode mcp` start and idle closes that take a few sweeps: generous on a loaded machine. */
const ATTACK_TIMEOUT_MS = 240_000;

const key = newApiKey();
let gateway: Gateway;
let server: PlaygroundServer;
let target: HttpTarget;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'codemode-hostile-http-'));
  const configFile = join(dir, 'codemode.config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      tools: { codeMode: { enabled: true, executor: 'quickjs', timeoutMs: 5000 } },
      workspace: join(REPO_ROOT, 'demo/workspace'),
      sessions: { path: join(dir, 'sessions.db') },
      server: { clients: { bystander: { keySha256: key.keySha256 } }, shares: HOSTILE_SHARES },
      mcpServer: { maxSessions: 8, sessionIdleSeconds: HOSTILE_MCP_IDLE_SECONDS },
    }),
  );
  gateway = await createGateway({ configPath: configFile });
  server = await startPlaygroundServer({
    gateway,
    host: '127.0.0.1',
    port: 0,
    server: gateway.config.server,
    accessToken: undefined,
    mcpServer: gateway.config.mcpServer,
    handlePage: async (req, res) => {
      if (req.url?.split('?')[0] !== '/') res.statusCode = 404;
      res.end('<p>the page</p>');
    },
  });
  const port = server.exposure.port;
  // the operator's cookie, as the page gets it: a browser's navigation to /
  const page = await sendRaw(port, { method: 'GET', path: '/', headers: NAVIGATION_HEADERS });
  const cookie = String(page.headers['set-cookie'] ?? '').split(';')[0] ?? '';
  target = { port, key: key.key, operatorCookie: cookie, configFile };
}, ATTACK_TIMEOUT_MS);

afterAll(async () => {
  await server?.mcp?.close();
  server?.server.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.server.close(() => resolve()) : resolve()));
  await gateway?.close();
});

/** A normal cell (the cells corpus' probe) from a client, to its end. */
async function probe(auth?: string): Promise<string[]> {
  const opts = auth ? { auth } : {};
  const turn = await api<Turn>(target.port, 'turns.prepare', {}, opts);
  if (!turn.data) return [`turns.prepare failed: ${turn.status} ${turn.message}`];
  const { agentRunId, turnToken } = turn.data;
  let result = (await api<{ status: string; runId: string }>(target.port, 'exec', { agentRunId, turnToken, input: { code: readFileSync(PROBE_FILE, 'utf8') } }, opts)).data;
  while (result?.status === 'waiting') result = (await api<{ status: string; runId: string }>(target.port, 'wait', { agentRunId, turnToken, runId: result.runId }, opts)).data;
  await api(target.port, 'turns.end', { agentRunId, turnToken }, opts);
  return result ? checkOutcome({ name: `probe${auth ? ' (keyed)' : ' (keyless)'}`, expect: PROBE_EXPECT }, result) : ['the probe got no result'];
}

const corpus = await loadHttpCorpus();

describe('hostile HTTP corpus against the real server', () => {
  it('loads every script with its attack and finding', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(10);
    for (const attack of corpus) expect(attack.attack.length, attack.name).toBeGreaterThan(20);
  });

  for (const attack of corpus) {
    it(
      `${attack.name}: ${attack.attack}`,
      async () => {
        const problems = await attack.run(target);
        problems.push(...(await probe()), ...(await probe(target.key)));
        expect(problems).toEqual([]);
      },
      ATTACK_TIMEOUT_MS,
    );
  }
});
