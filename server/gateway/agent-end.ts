// The plugins' agent_end hooks: a turn ended, and they hear it with the activity its transcript accepted (spec 02).
import type { Transcript } from '../sessions/transcript.ts';
import type { NestedActivityPayload } from '../sessions/types.ts';
import { runAgentEndHooks, type CodeModePlugin } from '../tools/plugins.ts';
import { turnActivity } from './recorder.ts';

export type TurnEndReason = 'ended' | 'idle' | 'shutdown';

export class AgentEndHooks {
  /** Transcript reads under way: settled() lets them finish before the database closes. */
  private readonly reads = new Set<Promise<unknown>>();

  constructor(
    private readonly plugins: readonly CodeModePlugin[],
    private readonly transcript: Pick<Transcript, 'branch'>,
    private readonly log: (line: string) => void,
  ) {}

  /** A turn ended: read its accepted activity, then run the hooks on their own (nobody awaits them). */
  turnEnded(turn: { agentRunId: string; agentId: string; sessionId: string }, reason: TurnEndReason): void {
    if (!this.plugins.some((p) => p.hooks?.agent_end)) return;
    const read = (async (): Promise<NestedActivityPayload[]> => {
      try {
        // a read writes the turn's queued activity rows first: the hooks get what the transcript accepted
        return turnActivity(await this.transcript.branch(turn.sessionId), turn.agentRunId);
      } catch (err) {
        this.log(`agent_end: the transcript of session ${turn.sessionId} could not be read (${(err as Error).message}); the hooks get no activity`);
        return [];
      }
    })();
    this.reads.add(read);
    void read.then((activity) => {
      this.reads.delete(read);
      return runAgentEndHooks(this.plugins, { ...turn, reason, activity }, this.log);
    });
  }

  /** Resolves once every transcript read under way has finished (the hooks themselves run on their own). */
  async settled(): Promise<void> {
    await Promise.all(this.reads);
  }
}
