// attack: a keyless client opens event streams and never reads them, until no other client can subscribe
// finding: issue 39, 3 and 7.4 (8 streams per remote address locked out every other loopback client; stalled readers held memory)
import { HOSTILE_SHARES, type HttpTarget } from '../http-corpus.ts';
import { api, eventually, openStream, type HeldStream, type Turn } from './kit.ts';

const WITHIN_MS = 30_000;

/** Whether `stream` hears the next run of `turn` start (an accepted subscription), rather than a refusal. */
async function hears(t: HttpTarget, stream: HeldStream, turn: Turn, auth?: string): Promise<boolean> {
  const verdict = Promise.race([stream.saw('run.started').then(() => true), stream.saw('serialized-error').then(() => false)]);
  await api(t.port, 'exec', { agentRunId: turn.agentRunId, turnToken: turn.turnToken, input: { code: 'return 1' } }, auth ? { auth } : {});
  return verdict;
}

export async function run(t: HttpTarget): Promise<string[]> {
  const problems: string[] = [];
  const turn = (await api<Turn>(t.port, 'turns.prepare', {})).data!;
  const held: HeldStream[] = [];
  for (let i = 0; i < HOSTILE_SHARES.anonymous.eventStreams; i++) held.push(await openStream(t.port, [turn.turnToken], { stall: true }));
  const over = await openStream(t.port, [turn.turnToken]);
  await over.saw('serialized-error');
  if (!over.text().includes('server.shares.anonymous.eventStreams')) problems.push(`one stream past the share was not refused naming it: ${over.text().slice(0, 300)}`);
  over.close();
  // while they stall, a keyed client subscribes and hears its own run
  const mine = (await api<Turn>(t.port, 'turns.prepare', {}, { auth: t.key })).data!;
  const stream = await openStream(t.port, [mine.turnToken], { auth: t.key });
  if (!(await hears(t, stream, mine, t.key))) problems.push(`the keyed subscriber was refused: ${stream.text().slice(0, 300)}`);
  // the stalled ones leave: their places come back
  for (const s of [...held, stream]) s.close();
  const back = await eventually(async () => {
    const again = await openStream(t.port, [turn.turnToken]);
    try {
      return await hears(t, again, turn);
    } finally {
      again.close();
    }
  }, WITHIN_MS);
  if (!back) problems.push('after the stalled streams left, a keyless client still could not subscribe');
  await api(t.port, 'turns.end', { agentRunId: turn.agentRunId, turnToken: turn.turnToken });
  await api(t.port, 'turns.end', { agentRunId: mine.agentRunId, turnToken: mine.turnToken }, { auth: t.key });
  return problems;
}
