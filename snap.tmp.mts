import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGateway } from './server/gateway.ts';
for (const withGithub of [false, true]) {
  const dir = mkdtempSync(join(tmpdir(), 'snap-'));
  const file = join(dir, 'c.json');
  writeFileSync(file, JSON.stringify({ tools: { codeMode: { enabled: true, executor: 'quickjs' } }, agents: { defaults: { model: 'demo/coder' }, list: [{ id: 'main' }] }, sources: withGithub ? { openapi: { github: { document: join(process.cwd(), 'node_modules/@octokit/openapi/generated/api.github.com.json'), baseUrl: 'http://127.0.0.1:9' } } } : {}, workspace: join(process.cwd(), 'demo/workspace'), sessions: { path: ':memory:' } }));
  const gw = await createGateway({ configPath: file });
  await gw.mcpReady();
  const turn = gw.prepareTurn({});
  const times: number[] = [];
  for (let i = 0; i < 6; i++) {
    const t = performance.now();
    const r = await gw.exec(turn.agentRunId, { code: 'return 1' });
    times.push(Math.round(performance.now() - t));
    if (r.status !== 'completed') console.log(r);
  }
  console.log(withGithub ? 'github' : 'plain', times);
  await gw.close();
}
