// grep's matching thread (see server/offload/deadline-worker.ts): matches one compiled pattern against the files
// the host already read and confined. The host terminates this thread when a pattern outlives its deadline.
/** @import { DeadlineJobMessage, DeadlineWorkerReply } from '../../offload/deadline-worker.ts' */
/** @import { MatchJob, MatchResult } from './workspace.ts' */
import { parentPort } from 'node:worker_threads';

const port = parentPort;
if (!port) throw new Error('the grep thread runs on a worker thread');
/** @param {DeadlineWorkerReply<MatchResult>} reply */
const reply = (reply) => port.postMessage(reply);

port.on('message', (/** @type {DeadlineJobMessage<MatchJob>} */ { id, job }) => {
  try {
    const re = new RegExp(job.source);
    /** @type {MatchResult['matches']} */
    const matches = [];
    let truncated = false;
    outer: for (const file of job.files) {
      const lines = file.text.split(/\r?\n/);
      for (let i = 0; i < lines.length; i++) {
        const raw = /** @type {string} */ (lines[i]);
        const line = raw.length > job.maxLineChars ? raw.slice(0, job.maxLineChars) : raw;
        if (re.test(line)) {
          if (matches.length >= job.maxMatches) {
            truncated = true;
            break outer;
          }
          matches.push({ path: file.path, line: i + 1, text: line });
        }
      }
    }
    reply({ id, ok: true, value: { matches, truncated } });
  } catch (error) {
    reply({ id, ok: false, error: error instanceof Error ? error.message : String(error) });
  }
});
reply({ t: 'ready' });
