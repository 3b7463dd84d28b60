// grep's matching thread (see server/offload/deadline-worker.ts): matches one compiled pattern against the files
// the host already read and confined. The host terminates this thread when a pattern outlives its deadline.
import { parentPort } from 'node:worker_threads';

parentPort.on('message', ({ id, job }) => {
  try {
    const re = new RegExp(job.source);
    const matches = [];
    let truncated = false;
    outer: for (const file of job.files) {
      const lines = file.text.split(/\r?\n/);
      for (let i = 0; i < lines.length; i++) {
        const raw = lines[i];
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
    parentPort.postMessage({ id, ok: true, value: { matches, truncated } });
  } catch (error) {
    parentPort.postMessage({ id, ok: false, error: error instanceof Error ? error.message : String(error) });
  }
});
parentPort.postMessage({ t: 'ready' });
