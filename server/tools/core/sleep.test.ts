// Tests for core sleep: it waits, validates ms, and rejects when the run is aborted.
import { describe, expect, it } from 'vitest';
import { ToolError } from '../../errors.ts';
import { callTool, testContext } from '../testing.ts';
import { withInputValidation } from '../validate.ts';
import { MAX_SLEEP_MS, createSleepTool } from './sleep.ts';

const sleep = withInputValidation(createSleepTool());

describe('sleep', () => {
  it('on ms: resolves { sleptMs } after at least that long', async () => {
    const started = Date.now();
    const result = (await callTool(sleep, { ms: 30 })) as { sleptMs: number };
    expect(Date.now() - started).toBeGreaterThanOrEqual(29);
    expect(result.sleptMs).toBeGreaterThanOrEqual(30);
  });

  it('on abort: rejects with code aborted before the time is up', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const pending = callTool(sleep, { ms: 10_000 }, testContext({ signal: controller.signal }));
    setTimeout(() => controller.abort(), 20);
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).code).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('on an already aborted signal: rejects at once', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(callTool(sleep, { ms: 10 }, testContext({ signal: controller.signal }))).rejects.toThrow(/aborted/);
  });

  it('on ms out of range or not an integer: names the field', async () => {
    await expect(callTool(sleep, { ms: -1 })).rejects.toThrow(/"ms" must be >= 0/);
    await expect(callTool(sleep, { ms: MAX_SLEEP_MS + 1 })).rejects.toThrow(new RegExp(`"ms" must be <= ${MAX_SLEEP_MS}`));
    await expect(callTool(sleep, { ms: '10' })).rejects.toThrow(/"ms" must be an integer/);
  });
});
