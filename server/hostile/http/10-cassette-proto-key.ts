// attack: a replayed cell adds an own "__proto__" key to a tool call's input, so the cassette answers a call the tool would have refused (additionalProperties: false)
// finding: issue 39, 7.5 (cassette matching ignored an extra "__proto__" key)
import type { HttpTarget } from '../http-corpus.ts';
import { api, type Turn } from './kit.ts';

export async function run(t: HttpTarget): Promise<string[]> {
  const turn = (await api<Turn>(t.port, 'turns.prepare', {})).data!;
  const recorded = await api<{ status: string; telemetry: { runId: string } }>(t.port, 'exec', {
    agentRunId: turn.agentRunId,
    turnToken: turn.turnToken,
    input: { code: 'return (await read({ path: "README.md" })).path' },
  });
  const cassette = await api<unknown>(t.port, 'runs.cassette', { runId: recorded.data?.telemetry.runId, turnToken: turn.turnToken }, { query: true });
  if (!cassette.data) return [`no cassette: ${cassette.message}`];
  const replayed = await api<{ status: string; code?: string }>(t.port, 'exec', {
    agentRunId: turn.agentRunId,
    turnToken: turn.turnToken,
    input: { code: 'return (await read(JSON.parse(\'{"path":"README.md","__proto__":{"admin":true}}\'))).path' },
    replay: cassette.data,
  });
  await api(t.port, 'turns.end', { agentRunId: turn.agentRunId, turnToken: turn.turnToken });
  return replayed.data?.code === 'replay_mismatch' ? [] : [`the replay answered the call with the extra key: ${JSON.stringify(replayed.data).slice(0, 200)}`];
}
