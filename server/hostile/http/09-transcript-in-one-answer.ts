// attack: a client grows its session's transcript (cells with large sources and results) and asks for it, to make the server build, hold and send megabytes in one answer
// finding: issue 39, 7.3 (sessions.transcript answered 14.4 MiB at once)
import type { HttpTarget } from '../http-corpus.ts';
import { api, send, type Turn } from './kit.ts';

/** A page's payload bound (sessions/transcript-page.ts) and room for the envelope. */
const MAX_ANSWER_BYTES = 1.25 * 1024 * 1024;

export async function run(t: HttpTarget): Promise<string[]> {
  const problems: string[] = [];
  const turn = (await api<Turn>(t.port, 'turns.prepare', {})).data!;
  // each cell's source and result land in the transcript: ~120 KB a cell, 6 MB in all
  const filler = 'x'.repeat(60 * 1024);
  for (let i = 0; i < 50; i++) {
    await api(t.port, 'exec', { agentRunId: turn.agentRunId, turnToken: turn.turnToken, input: { code: `// ${filler}\nreturn "${filler}"` } });
  }
  let answers = 0;
  let after: string | null | undefined;
  let total = 0;
  let read = 0;
  do {
    const input = { sessionId: turn.sessionId, ...(after ? { after } : {}) };
    const reply = await send(t.port, 'GET', `/api/trpc/sessions.transcript?input=${encodeURIComponent(JSON.stringify(input))}`, { 'x-codemode-turn-token': turn.turnToken });
    answers++;
    if (reply.body.length > MAX_ANSWER_BYTES) problems.push(`an answer was ${reply.body.length} bytes`);
    const page = (JSON.parse(reply.body) as { result?: { data: { entries: unknown[]; nextCursor: string | null; total: number } } }).result?.data;
    if (!page) return [...problems, `sessions.transcript failed: ${reply.body.slice(0, 200)}`];
    read += page.entries.length;
    total = page.total;
    after = page.nextCursor;
  } while (after && answers < 100);
  if (answers < 2) problems.push('a 6 MB transcript came in one answer');
  if (read !== total) problems.push(`the pages held ${read} entries of ${total}`);
  await api(t.port, 'turns.end', { agentRunId: turn.agentRunId, turnToken: turn.turnToken });
  return problems;
}
