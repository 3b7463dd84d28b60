// Tests for the span previews: bounded and redacted, in run views and the trajectory export, never in the transcript.
import { describe, expect, it } from 'vitest';
import { expectCompleted, testGateway } from '../testing.ts';
import { NESTED_PREVIEW_CHARS, previewOf, previewOfError } from './preview.ts';

const SECRET = 'sk-ABCDEFGHIJKLMNOPQRSTUVWXYZ123456';

describe('previewOf', () => {
  it('keeps a small value whole as JSON', () => {
    expect(previewOf({ query: 'QuickJS', limit: 2 })).toBe('{"query":"QuickJS","limit":2}');
  });
  it('cuts a long value at NESTED_PREVIEW_CHARS and says how long it was', () => {
    const preview = previewOf('x'.repeat(100_000));
    expect(preview.startsWith(`"${'x'.repeat(NESTED_PREVIEW_CHARS - 1)}…`)).toBe(true);
    expect(preview).toContain(`cut: 100002 characters, the preview keeps ${NESTED_PREVIEW_CHARS}`);
    expect(preview.length).toBeLessThan(NESTED_PREVIEW_CHARS + 100);
  });
  it('masks secrets as cell source is masked, in values and error messages', () => {
    expect(previewOf({ note: `key ${SECRET}`, password: 'hunter2' })).not.toMatch(/ABCDEFGHIJ|hunter2/);
    expect(previewOfError(`upstream refused ${SECRET}`)).not.toContain('ABCDEFGHIJ');
  });
});

describe('span previews through the Gateway', () => {
  it('a nested call records its input, output and error previews in run history and the export, and none in the transcript', async () => {
    const gw = await testGateway();
    const t = gw.prepareTurn({});
    const result = expectCompleted(
      await gw.exec(t.agentRunId, {
        code: `const hits = await web_search({ query: "QuickJS ${SECRET}", limit: 1 });\ntry { await read({ path: "no/such/file.txt" }); } catch {}\nreturn hits.results.length`,
      }),
    );
    const run = gw.run(result.telemetry.runId!)!;
    const [search, read] = run.nested;
    expect(search?.inputPreview).toContain('QuickJS');
    expect(search?.inputPreview).not.toContain('ABCDEFGHIJ');
    expect(search?.outputPreview).toContain('"results"');
    expect(read?.status).toBe('error');
    expect(read?.errorPreview).toMatch(/no\/such\/file\.txt|not found|ENOENT/i);
    const exported = gw.trajectory(run.runId)!;
    expect(exported.calls[0]?.nested[0]?.inputPreview).toBe(search?.inputPreview);
    const activity = (await gw.transcript(t.sessionId)).filter((e) => e.type === 'nested-activity');
    expect(activity.length).toBe(2);
    for (const entry of activity) expect(JSON.stringify(entry.payload)).not.toMatch(/Preview|QuickJS/);
  });
});

describe('hook decisions on a span', () => {
  it('a nested call records what each before_tool_call hook decided, in run history and the export, not in the transcript', async () => {
    const gw = await testGateway({
      plugins: [
        { id: 'watcher', tools: [], hooks: { before_tool_call: () => undefined } },
        { id: 'no-secrets', tools: [], hooks: { before_tool_call: (e) => (e.tool === 'read' && JSON.stringify(e.input).includes('secrets/') ? { block: 'secrets stay closed' } : undefined) } },
      ],
    });
    const t = gw.prepareTurn({});
    const result = expectCompleted(
      await gw.exec(t.agentRunId, {
        code: 'await read({ path: "notes/todo.md" }).catch(() => null);\ntry { await read({ path: "secrets/token.txt" }); } catch (e) { return String(e); }',
      }),
    );
    const run = gw.run(result.telemetry.runId!)!;
    const [allowed, blocked] = run.nested;
    expect(allowed?.hooks).toEqual([
      { plugin: 'watcher', decision: 'passed' },
      { plugin: 'no-secrets', decision: 'passed' },
    ]);
    expect(blocked?.hooks).toEqual([
      { plugin: 'watcher', decision: 'passed' },
      { plugin: 'no-secrets', decision: 'blocked', reason: 'secrets stay closed' },
    ]);
    expect(blocked?.status).toBe('error');
    expect(gw.trajectory(run.runId)?.calls[0]?.nested[1]?.hooks).toEqual(blocked?.hooks);
    for (const entry of (await gw.transcript(t.sessionId)).filter((e) => e.type === 'nested-activity')) expect(JSON.stringify(entry.payload)).not.toMatch(/hooks|secrets stay/);
  });
});
