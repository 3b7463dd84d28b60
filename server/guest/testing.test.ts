// The guest test kit's protocol recorder: it must see a forged guest message, whichever check caught it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QuickJsExecutor } from '../executors/quickjs/executor.ts';
import type { Gateway } from '../gateway.ts';
import { gatewayWith, protocolProblems, recordRunFailures, recordingExecutor, type ProtocolLog } from './testing.ts';

describe('protocolProblems', () => {
  let inner: QuickJsExecutor;
  let log: ProtocolLog;
  let gw: Gateway;

  beforeAll(async () => {
    // a cell that holds the raw host primitive can send what the prelude never would
    inner = new QuickJsExecutor({ workers: 1, preludePrefix: 'globalThis.__cm_raw = globalThis.__cm_sync;' });
    await inner.ready();
    const recorded = recordingExecutor(inner);
    log = recorded.log;
    gw = await gatewayWith(recorded.executor, []);
    recordRunFailures(gw, log);
  });

  afterAll(async () => {
    await gw.close();
    await inner.close();
  });

  async function problemsOf(code: string): Promise<string[]> {
    log.requests.length = 0;
    log.cancels.length = 0;
    log.outcomes.length = 0;
    log.runErrors.length = 0;
    const t = gw.prepareTurn({});
    try {
      await gw.exec(t.agentRunId, { code });
    } finally {
      gw.endTurn(t.agentRunId);
    }
    return protocolProblems(log);
  }

  it('on an honest cell with tool work: none', async () => {
    expect(await problemsOf('await sleep({ ms: 1 });\nreturn 1')).toEqual([]);
  });

  it("on a malformed request the worker's check refuses: reports the failed leg (and the run it failed)", async () => {
    const problems = await problemsOf('__cm_raw("send", "null");\nawait sleep({ ms: 1 })');
    expect(problems).toHaveLength(2);
    expect(problems).toEqual(expect.arrayContaining([expect.stringMatching(/^failed: .*malformed message/), expect.stringMatching(/^run failed on a protocol fault: /)]));
  });

  it("on a forged cancel only the run's frontier check refuses (the leg itself ends aborted): reports the run's failure", async () => {
    expect(await problemsOf('__cm_raw("cancel", "r999");\nawait sleep({ ms: 1 })')).toEqual([expect.stringMatching(/^run failed on a protocol fault: .*never sent/)]);
  });
});
