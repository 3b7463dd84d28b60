// attack: OpenAPI documents someone else wrote point the calls inward: a fetched one at another loopback service by its IPv4-mapped IPv6 spelling, an uploaded one at the playground's own port (its API hands out turn tokens) and at cloud metadata behind the mapped spelling
// finding: issue 39, 6 (the address checks read literal strings, and the own-port check covered only fetched documents)
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { HttpTarget } from '../http-corpus.ts';
import { api, eventually } from './kit.ts';

const DOCUMENT = readFileSync(fileURLToPath(new URL('../../../demo/openapi/inventory.yaml', import.meta.url)), 'utf8');
const WITHIN_MS = 30_000;

interface SourceView {
  name: string;
  state: string;
  error?: string;
}

async function settled(t: HttpTarget, name: string): Promise<SourceView | undefined> {
  let view: SourceView | undefined;
  await eventually(async () => {
    view = (await api<SourceView[]>(t.port, 'sources.list', undefined, { query: true, cookie: t.operatorCookie })).data?.find((s) => s.name === name);
    return view !== undefined && view.state !== 'connecting';
  }, WITHIN_MS);
  return view;
}

export async function run(t: HttpTarget): Promise<string[]> {
  const problems: string[] = [];
  // another service on the machine, and a host serving a document that names it
  const victim = createServer((_req, res) => res.end('{"secret":"of another service"}'));
  await new Promise<void>((done) => victim.listen(0, '127.0.0.1', done));
  const victimPort = (victim.address() as { port: number }).port;
  const host = createServer((_req, res) => res.end(DOCUMENT.replace('http://127.0.0.1:4011', `http://[::ffff:127.0.0.1]:${victimPort}`)));
  await new Promise<void>((done) => host.listen(0, '127.0.0.1', done));
  const hostPort = (host.address() as { port: number }).port;
  let victimHit = false;
  victim.on('request', () => (victimHit = true));
  const cases: Array<{ name: string; source: Record<string, unknown>; expect: string }> = [
    { name: 'mapped', source: { kind: 'openapi', name: 'mapped', document: `http://127.0.0.1:${hostPort}/openapi.yaml` }, expect: 'a loopback or private address of another host or port' },
    { name: 'own', source: { kind: 'openapi', name: 'own', documentText: DOCUMENT.replace('http://127.0.0.1:4011', `http://127.0.0.1:${t.port}`) }, expect: "this Gateway's own server" },
    { name: 'metadata', source: { kind: 'openapi', name: 'metadata', documentText: DOCUMENT.replace('http://127.0.0.1:4011', 'http://[::ffff:169.254.169.254]') }, expect: 'link-local' },
  ];
  try {
    for (const c of cases) {
      const added = await api(t.port, 'sources.add', c.source, { cookie: t.operatorCookie });
      if (added.status !== 200) {
        problems.push(`${c.name}: sources.add answered ${added.status}: ${added.message}`);
        continue;
      }
      const view = await settled(t, c.name);
      if (view?.state !== 'failed' || !view.error?.includes(c.expect)) problems.push(`${c.name}: the source was not refused (${c.expect}): ${JSON.stringify(view)}`);
      await api(t.port, 'sources.remove', { name: c.name }, { cookie: t.operatorCookie });
    }
    if (victimHit) problems.push('the other loopback service was reached');
  } finally {
    await Promise.all([victim, host].map((s) => new Promise((done) => s.close(done))));
  }
  return problems;
}
