// A Gateway in a child process for the kill -9 test of restart recovery: parks a restartSafe and an ordinary cell in session "crash", prints their run ids, then waits to be killed.
import { Gateway } from '../gateway.ts';
import { loadToolSources } from '../tools/registry.ts';
import { testCodeModeOptions, testConfig } from '../tools/testing.ts';
import { heldRead, ORDINARY_CELL, RESTART_SAFE_CELL } from './restart-recovery.testing.ts';

const path = process.argv[2];
if (!path) throw new Error('usage: restart-recovery-child.testing.ts <sessions.sqlite>');
// the reads are never released here: each cell parks once its exec deadline passes
const config = testConfig({ sessions: { path }, tools: { codeMode: testCodeModeOptions({ timeoutMs: 300 }) } });
const sources = await loadToolSources(config);
sources.tools.push(heldRead('never').tool);
const gw = new Gateway(config, sources, {});
const turn = gw.prepareTurn({ sessionId: 'crash' });
const safe = await gw.exec(turn.agentRunId, { code: RESTART_SAFE_CELL, restartSafe: true });
const ordinary = await gw.exec(turn.agentRunId, { code: ORDINARY_CELL });
process.stdout.write(`${JSON.stringify({ safe, ordinary })}\n`);
// held open until the test kills the process
setInterval(() => {}, 60_000);
