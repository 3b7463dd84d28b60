// Bundled plugin `llm-task`: an OFFLINE, deterministic stand-in for an LLM text task (no model is called).
//
// It recognises a few task words at the start of the prompt and does the job
// with plain text rules, so demos and tests get stable answers:
// "summarize:" (top sentences by word frequency), "extract:" (emails, urls,
// numbers, dates), "sentiment:" (word lists), "keywords:" (top words). Anything
// else is summarised.
import type { CodeModePlugin } from '../plugins.ts';
import type { ToolDefinition } from '../types.ts';
import { tokenize } from '../core/web.ts';

export type LlmTaskKind = 'summarize' | 'extract' | 'sentiment' | 'keywords';

/** A summary should be a couple of sentences, like a short model answer. */
export const SUMMARY_SENTENCES = 2;
/** A keyword list longer than this stops being a summary of topics. */
export const KEYWORD_COUNT = 5;

const POSITIVE = new Set('good great excellent happy love like best fast easy win wins won improved improve record warm pleasant helpful success successful growth grew'.split(' '));
const NEGATIVE = new Set('bad poor terrible sad hate slow hard fail failed failure broken worse worst delay delays delayed loss lost cold problem problems'.split(' '));

function detectTask(prompt: string): { task: LlmTaskKind; body: string } {
  const match = /^\s*(summari[sz]e|tl;?dr|extract|sentiment|classify|keywords?|topics?)\b\s*:?\s*/i.exec(prompt);
  const word = match?.[1]?.toLowerCase() ?? '';
  const body = match ? prompt.slice(match[0].length) : prompt;
  if (word.startsWith('extract')) return { task: 'extract', body };
  if (word === 'sentiment' || word === 'classify') return { task: 'sentiment', body };
  if (word.startsWith('keyword') || word.startsWith('topic')) return { task: 'keywords', body };
  return { task: 'summarize', body };
}

function sentences(text: string): string[] {
  return (text.replace(/\s+/g, ' ').match(/[^.!?]+[.!?]*/g) ?? []).map((s) => s.trim()).filter(Boolean);
}

function wordFrequencies(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const word of tokenize(text)) if (word.length > 2) counts.set(word, (counts.get(word) ?? 0) + 1);
  return counts;
}

function summarize(text: string): string {
  const all = sentences(text);
  if (all.length <= SUMMARY_SENTENCES) return all.join(' ');
  const freq = wordFrequencies(text);
  const scored = all.map((sentence, index) => {
    const words = tokenize(sentence);
    const score = words.reduce((sum, word) => sum + (freq.get(word) ?? 0), 0) / Math.max(words.length, 1);
    return { sentence, index, score };
  });
  const top = [...scored].sort((a, b) => b.score - a.score || a.index - b.index).slice(0, SUMMARY_SENTENCES);
  return top.sort((a, b) => a.index - b.index).map((s) => s.sentence).join(' ');
}

function keywords(text: string): string[] {
  return [...wordFrequencies(text).entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, KEYWORD_COUNT)
    .map(([word]) => word);
}

function extract(text: string): { emails: string[]; urls: string[]; dates: string[]; numbers: string[] } {
  const unique = (values: string[]): string[] => [...new Set(values)];
  const urls = unique(text.match(/https?:\/\/[^\s"'<>)]+/g) ?? []).map((url) => url.replace(/[.,;]+$/, ''));
  const emails = unique(text.match(/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g) ?? []);
  const dates = unique(text.match(/\b\d{4}-\d{2}-\d{2}\b/g) ?? []);
  const withoutOthers = [...urls, ...emails, ...dates].reduce((rest, found) => rest.split(found).join(' '), text);
  const numbers = unique(withoutOthers.match(/-?\b\d+(?:[.,]\d+)?\b%?/g) ?? []);
  return { emails, urls, dates, numbers };
}

function sentiment(text: string): { label: 'positive' | 'negative' | 'neutral'; score: number } {
  const words = tokenize(text);
  const score = words.filter((w) => POSITIVE.has(w)).length - words.filter((w) => NEGATIVE.has(w)).length;
  return { label: score > 0 ? 'positive' : score < 0 ? 'negative' : 'neutral', score };
}

export function runLlmTask(prompt: string): { task: LlmTaskKind; text: string; details?: unknown; offline: true } {
  const { task, body } = detectTask(prompt);
  switch (task) {
    case 'extract': {
      const found = extract(body);
      const parts = Object.entries(found).filter(([, values]) => values.length > 0).map(([kind, values]) => `${kind}: ${values.join(', ')}`);
      return { task, text: parts.join('; ') || 'nothing to extract', details: found, offline: true };
    }
    case 'sentiment': {
      const result = sentiment(body);
      return { task, text: result.label, details: result, offline: true };
    }
    case 'keywords': {
      const words = keywords(body);
      return { task, text: words.join(', '), details: { keywords: words }, offline: true };
    }
    case 'summarize':
      return { task, text: summarize(body), offline: true };
  }
}

export function createLlmTaskPlugin(): CodeModePlugin {
  const tool: ToolDefinition = {
    name: 'llm-task',
    description:
      'Run a small text task on a prompt (OFFLINE deterministic stand-in, no model is called). Start the prompt with ' +
      '"summarize:", "extract:", "sentiment:" or "keywords:" followed by the text; anything else is summarised.',
    source: 'bundled_plugin',
    owner: 'llm-task',
    inputSchema: {
      type: 'object',
      properties: { prompt: { type: 'string', minLength: 1, description: 'Task word, a colon, then the text.' } },
      required: ['prompt'],
      additionalProperties: false,
    },
    // No outputSchema on purpose: the result is typed `unknown` in declarations, like a real LLM tool.
    async execute(input) {
      return runLlmTask((input as { prompt: string }).prompt);
    },
  };
  return { id: 'llm-task', tools: [tool] };
}
