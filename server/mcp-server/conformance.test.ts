// The official MCP conformance runner's server scenarios (a pinned dev dependency, run from node_modules) against /mcp; the ones that apply to a server of this shape (docs/test-plan.md lists the rest and why).
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../tools/testing.ts';
import { CONFORMANCE_CLI, mcpServerForSuite } from './testing.ts';

const run = promisify(execFile);
/** Each scenario is a child process (seconds, more on a loaded machine). */
const CHILD_PROCESS_TIMEOUT_MS = 120_000;

/**
 * The server scenarios of conformance 0.1.12 that need nothing but the protocol: lifecycle, ping, listing,
 * concurrent POST streams and DNS-rebinding protection. The others call fixture tools, prompts or resources a
 * conformance test server would carry (test_simple_text, test_tool_with_progress, ...), which a server that
 * lists exactly a model's surface does not have.
 */
const APPLICABLE_SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'server-sse-multiple-streams', 'dns-rebinding-protection'] as const;

interface ConformanceCheck {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  description: string;
  errorMessage?: string;
}

describe('MCP conformance (server scenarios) against /mcp', { timeout: CHILD_PROCESS_TIMEOUT_MS }, () => {
  const suite = mcpServerForSuite();

  it.each(APPLICABLE_SCENARIOS)('%s: every check passes (no failure, no warning), the runner exits 0', async (scenario) => {
    const outputDir = mkdtempSync(join(tmpdir(), `codemode-conformance-${scenario}-`));
    const outcome = await run(process.execPath, [CONFORMANCE_CLI, 'server', '--url', suite.url, '--scenario', scenario, '--output-dir', outputDir], { cwd: REPO_ROOT }).then(
      () => ({ code: 0, stdout: '' }),
      (err: { code: number; stdout: string }) => ({ code: err.code, stdout: err.stdout }),
    );
    // the runner writes its checks to <outputDir>/server-<scenario>-<timestamp>/checks.json
    const [resultDir] = readdirSync(outputDir).filter((name) => name.startsWith(`server-${scenario}-`));
    expect(resultDir, `no result folder; the runner said:\n${outcome.stdout}`).toBeDefined();
    const checks = JSON.parse(readFileSync(join(outputDir, resultDir!, 'checks.json'), 'utf8')) as ConformanceCheck[];
    const verdicts = checks.filter((c) => c.status !== 'INFO');
    expect(verdicts.length).toBeGreaterThan(0);
    expect(verdicts.filter((c) => c.status !== 'SUCCESS')).toEqual([]);
    expect(outcome.code).toBe(0);
  });
});
