// attack: a keyless client prepares turns until the server refuses, so other API clients' turns.prepare answer 429
// finding: issue 39, 2 (live turns were counted per remote address: every loopback client shared one count)
import type { HttpTarget } from '../http-corpus.ts';
import { api, type Turn } from './kit.ts';

export async function run(t: HttpTarget): Promise<string[]> {
  const problems: string[] = [];
  const held: Turn[] = [];
  let refusal: { status: number; message?: string } | undefined;
  for (let i = 0; i < 100 && !refusal; i++) {
    const r = await api<Turn>(t.port, 'turns.prepare', {});
    if (r.data) held.push(r.data);
    else refusal = r;
  }
  if (!refusal) problems.push(`the keyless client held ${held.length} live turns without meeting its share`);
  else if (refusal.status !== 429 || !refusal.message?.includes('server.shares.anonymous.liveTurns')) problems.push(`refused, but not with 429 naming the share: ${JSON.stringify(refusal)}`);
  const mine = await api<Turn>(t.port, 'turns.prepare', {}, { auth: t.key });
  if (!mine.data) problems.push(`a keyed client could not prepare a turn beside them: ${JSON.stringify(mine)}`);
  const page = await api<Turn>(t.port, 'turns.prepare', {}, { cookie: t.operatorCookie });
  if (!page.data) problems.push(`the operator could not prepare a turn beside them: ${JSON.stringify(page)}`);
  for (const turn of held) await api(t.port, 'turns.end', { agentRunId: turn.agentRunId, turnToken: turn.turnToken });
  if (mine.data) await api(t.port, 'turns.end', { agentRunId: mine.data.agentRunId, turnToken: mine.data.turnToken }, { auth: t.key });
  return problems;
}
