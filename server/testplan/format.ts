// The test plan report as text (one line per step), JSON, and JUnit XML for CI systems.
import type { TestPlanReport } from './types.ts';

const MARK = { pass: 'PASS', fail: 'FAIL', not_applicable: 'N/A ' } as const;

export function reportText(report: TestPlanReport): string {
  const lines = report.steps.map((s) => `${MARK[s.verdict]} ${String(s.step).padStart(2)}. ${s.title}\n        ${s.detail}${s.runId ? ` (run ${s.runId})` : ''}`);
  const { pass, fail, notApplicable } = report.summary;
  return `${lines.join('\n')}\n\n${pass} passed, ${fail} failed, ${notApplicable} not applicable (agent "${report.agentId}"${report.configFile ? `, ${report.configFile}` : ''})`;
}

function xml(text: string): string {
  // XML 1.0 cannot carry most control characters even escaped
  return text
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

export function reportJunit(report: TestPlanReport): string {
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const total = report.steps.reduce((sum, s) => sum + s.durationMs, 0);
  const cases = report.steps.map((s) => {
    const name = xml(`step ${s.step}: ${s.title}`);
    const open = `    <testcase classname="codemode.test-plan" name="${name}" time="${seconds(s.durationMs)}"`;
    const body =
      s.verdict === 'fail'
        ? `\n      <failure message="${xml(s.detail)}">${xml(JSON.stringify({ cell: s.cell, result: s.result, runId: s.runId }, null, 2))}</failure>\n    </testcase>`
        : s.verdict === 'not_applicable'
          ? `\n      <skipped message="${xml(s.detail)}"/>\n    </testcase>`
          : `>\n      <system-out>${xml(s.detail)}</system-out>\n    </testcase>`;
    return s.verdict === 'pass' ? `${open}${body}` : `${open}>${body}`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="codemode test plan" tests="${report.steps.length}" failures="${report.summary.fail}" skipped="${report.summary.notApplicable}" time="${seconds(total)}">`,
    `  <testsuite name="spec E2E plan (agent ${xml(report.agentId)})" tests="${report.steps.length}" failures="${report.summary.fail}" skipped="${report.summary.notApplicable}" timestamp="${report.startedAt}" time="${seconds(total)}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
  ].join('\n');
}
