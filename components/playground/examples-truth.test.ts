// Every example in the picker, run through a Gateway over the shipped config, answers what the facts say
// (e2e/example-facts.ts: the host's clock and date, the demo tools called directly, `ls` run here). The E2E test
// runs the same examples from the page (e2e/examples.spec.ts); this one keeps the check next to the examples.
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../server/config/load.ts';
import { createGateway, type Gateway } from '../../server/gateway.ts';
import type { CodeModeResult } from '../../server/runs/types.ts';
import { expectCompleted, expectFailed, until } from '../../server/testing.ts';
import { REPO_ROOT } from '../../server/tools/testing.ts';
import { exampleProblems, sleepExampleMs, type ExampleRun } from '../../e2e/example-facts.ts';
import { DEFAULT_CLIENT_TOOLS } from './clientTools.ts';
import { EXAMPLES, findExample } from './examples.ts';

/** The sleep example waits 15 s on the page; here a shorter sleep checks the same arithmetic on the real clock. */
const SHORT_SLEEP_MS = 600;

describe('the examples tell the truth', () => {
  let gw: Gateway;
  let agentRunId: string;
  const ran = new Set<string>();

  beforeAll(async () => {
    const config = loadConfigFile(join(REPO_ROOT, 'codemode.config.json'));
    // the infinite loop only has to reach its deadline: a short budget keeps its CPU use small
    config.tools.codeMode.timeoutMs = 2500;
    gw = await createGateway({ config });
    await gw.mcpReady();
    // the page's turn: its client tool (ask_user) included
    agentRunId = gw.prepareTurn({ clientTools: DEFAULT_CLIENT_TOOLS }).agentRunId;
    // the approval example's shell exec: the operator approves it
    gw.subscribe((e) => {
      if (e.type === 'approval.requested') gw.decideApproval({ approvalId: e.approval.approvalId, approve: true });
    });
  });

  afterAll(async () => {
    await gw?.close();
  });

  /** Runs `code` to its end as the page would (Wait on every waiting result), answering a client call with `answer`. */
  async function runToEnd(code: string, language: 'javascript' | 'typescript', answer?: string): Promise<{ result: CodeModeResult; run: Omit<ExampleRun, 'value'> }> {
    const startedAt = Date.now();
    let result = await gw.exec(agentRunId, { code, language, ...(language === 'typescript' ? { typecheck: true } : {}) });
    const output = [...(result.output ?? [])];
    while (result.status === 'waiting') {
      const runId = result.runId;
      if (answer !== undefined) {
        await until(() => (gw.run(runId)?.clientCalls.length ?? 0) > 0, { what: 'the client tool call' });
        const call = gw.run(runId)!.clientCalls[0]!;
        gw.answerClientCall({ runId, callId: call.callId, result: { answer } });
      }
      result = await gw.wait(agentRunId, { runId });
      output.push(...(result.output ?? []));
    }
    return { result, run: { output: output.map((o) => o.text), startedAt, endedAt: Date.now(), ...(answer !== undefined ? { answer } : {}) } };
  }

  for (const example of EXAMPLES) {
    it(`on "${example.title}": ${example.id === 'infinite-loop' ? 'fails with timeout' : 'its value matches the facts'}`, async () => {
      ran.add(example.id);
      let code = example.code;
      if (example.id === 'sleep-wait') code = code.replace(`{ ms: ${sleepExampleMs()} }`, `{ ms: ${SHORT_SLEEP_MS} }`);
      const answer = example.id === 'client-tool' ? 'yes, ship it' : undefined;
      const { result, run } = await runToEnd(code, example.language, answer);
      if (example.id === 'infinite-loop') {
        expectFailed(result, 'timeout');
        return;
      }
      const value = expectCompleted(result).value;
      const sleepMs = example.id === 'sleep-wait' ? { sleepMs: SHORT_SLEEP_MS } : {};
      expect(await exampleProblems(example.id, { ...run, value, ...sleepMs })).toEqual([]);
      if (example.id === 'store-load') {
        // run again: it counts up from what the first run stored
        const again = await runToEnd(example.code, example.language);
        expect(await exampleProblems('store-load', { ...again.run, value: expectCompleted(again.result).value, counterBefore: (value as { now: number }).now })).toEqual([]);
      }
    });
  }

  it('on the TypeScript examples: no type assertion (`as T`), so a wrong field in a type is a typecheck error, not a lie', () => {
    for (const example of EXAMPLES.filter((e) => e.language === 'typescript')) {
      const source = ts.createSourceFile('cell.ts', example.code, ts.ScriptTarget.ES2022, true);
      const casts: string[] = [];
      const visit = (node: ts.Node) => {
        if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) casts.push(node.getText(source));
        ts.forEachChild(node, visit);
      };
      visit(source);
      expect(casts, `${example.id} casts`).toEqual([]);
    }
  });

  it('on the examples menu: every example ran above, and the sleep example still sleeps as the page shows it', () => {
    expect([...ran].sort()).toEqual(EXAMPLES.map((e) => e.id).sort());
    expect(findExample('sleep-wait')?.code).toContain(`sleep({ ms: ${sleepExampleMs()} })`);
  });
});
