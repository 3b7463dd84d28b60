// Tests for the bundled plugins: llm-task (offline), weather.lookup (fixture), notes_append (per session), guard (hook).
import { describe, expect, it } from 'vitest';
import { callTool, findTool, testContext } from '../testing.ts';
import type { ToolDefinition } from '../types.ts';
import { runBeforeToolCallHooks, type BeforeToolCallEvent } from '../plugins.ts';
import { withInputValidation } from '../validate.ts';
import { createGuardPlugin } from './guard.ts';
import { createLlmTaskPlugin, runLlmTask } from './llm-task.ts';
import { createNotesPlugin } from './notes.ts';
import { fixtureWeather, createWeatherPlugin } from './weather.ts';

function toolsOf(tools: unknown): ToolDefinition[] {
  if (!Array.isArray(tools)) throw new Error('bundled plugins list tools as arrays');
  return (tools as ToolDefinition[]).map(withInputValidation);
}

describe('llm-task', () => {
  const tool = findTool(toolsOf(createLlmTaskPlugin().tools), 'llm-task');

  it('has no output schema, so its output is unknown', () => {
    expect(tool.outputSchema).toBeUndefined();
    expect(tool.description).toMatch(/offline/i);
  });

  it('on "extract:": finds emails, urls, dates and numbers', () => {
    const result = runLlmTask('extract: mail ana@shop.example about https://docs.example/x on 2025-03-28, order 12 bikes');
    expect(result.details).toEqual({
      emails: ['ana@shop.example'],
      urls: ['https://docs.example/x'],
      dates: ['2025-03-28'],
      numbers: ['12'],
    });
  });

  it('on "summarize:": keeps the sentences sharing most words with the text, in order', async () => {
    const text =
      'Batteries are low. The weather was nice. Battery stock must be reordered because batteries sell fast. Order batteries today.';
    const result = (await callTool(tool, { prompt: `summarize: ${text}` })) as { task: string; text: string };
    expect(result.task).toBe('summarize');
    expect(result.text).not.toContain('weather');
    const picked = result.text.match(/[^.]+\./g) ?? [];
    expect(picked).toHaveLength(2);
    const positions = picked.map((sentence) => text.indexOf(sentence.trim()));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((x, y) => x - y)).toEqual(positions);
  });

  it('on "sentiment:": labels by word lists', () => {
    expect(runLlmTask('sentiment: great bikes, fast delivery, love it').text).toBe('positive');
    expect(runLlmTask('sentiment: broken lock and slow, terrible support').text).toBe('negative');
  });

  it('on the same prompt: gives the same answer', () => {
    const prompt = 'keywords: bikes bikes batteries tyres bikes batteries';
    expect(runLlmTask(prompt)).toEqual(runLlmTask(prompt));
    expect(runLlmTask(prompt).text.startsWith('bikes, batteries')).toBe(true);
  });
});

describe('weather.lookup', () => {
  const tool = findTool(toolsOf(createWeatherPlugin().tools), 'weather.lookup');

  it('on a city: returns fixture weather that is stable per city name', async () => {
    const a = (await callTool(tool, { city: 'Lisbon' })) as ReturnType<typeof fixtureWeather>;
    expect(a).toEqual(fixtureWeather('Lisbon'));
    expect({ ...fixtureWeather('  LISBON '), city: 'Lisbon' }).toEqual(a);
    expect(a.source).toBe('fixture');
    expect(a.humidityPct).toBeGreaterThanOrEqual(20);
    expect(a.humidityPct).toBeLessThanOrEqual(95);
  });

  it('on different cities: gives different readings', () => {
    const readings = ['Lisbon', 'Oslo', 'Kyoto', 'Dublin', 'Reykjavik'].map((city) => JSON.stringify({ ...fixtureWeather(city), city: '' }));
    expect(new Set(readings).size).toBeGreaterThan(1);
  });

  it('on a blank city: names the field', async () => {
    await expect(callTool(tool, { city: '   ' })).rejects.toThrow(/"city" is blank/);
    await expect(callTool(tool, {})).rejects.toThrow(/"city" is required/);
  });
});

describe('notes_append', () => {
  it('is sequential and counts notes per session', async () => {
    const plugin = createNotesPlugin();
    const tool = findTool(toolsOf(plugin.tools), 'notes_append');
    expect(tool.executionMode).toBe('sequential');
    const s1 = testContext({ sessionId: 's1' });
    const s2 = testContext({ sessionId: 's2' });
    expect(await callTool(tool, { text: 'one' }, s1)).toEqual({ count: 1 });
    expect(await callTool(tool, { text: 'two' }, s1)).toEqual({ count: 2 });
    expect(await callTool(tool, { text: 'other' }, s2)).toEqual({ count: 1 });
    expect(plugin.notesOf('s1')).toEqual(['one', 'two']);
  });

  it('on a fresh plugin instance: starts empty', () => {
    expect(createNotesPlugin().notesOf('s1')).toEqual([]);
  });
});

describe('guard', () => {
  const guard = createGuardPlugin();
  const base: BeforeToolCallEvent = { tool: 'read', source: 'core', input: {}, agentId: 'a', sessionId: 's', agentRunId: 'r', invocationId: 'i' };

  it('on read of a secrets/ path: blocks with a reason naming the path', async () => {
    for (const path of ['secrets/token.txt', './secrets/token.txt', 'a/secrets/b', 'secrets']) {
      const outcome = await runBeforeToolCallHooks([guard], { ...base, input: { path } });
      expect(outcome.blocked?.plugin).toBe('guard');
      expect(outcome.blocked?.reason).toContain(JSON.stringify(path));
    }
  });

  it('on other paths and other tools: lets the call through', async () => {
    expect((await runBeforeToolCallHooks([guard], { ...base, input: { path: 'notes/secrets-plan.md' } })).blocked).toBeUndefined();
    expect((await runBeforeToolCallHooks([guard], { ...base, tool: 'web_fetch', input: { path: 'secrets/x' } })).blocked).toBeUndefined();
  });
});
