// The client tools this page brings to each turn (editable), and validation of the user's edits.
import type { ClientToolSpec } from '../api.ts';

/** One client tool by default, so a cell can show the client-answer flow without setup. */
export const DEFAULT_CLIENT_TOOLS: ClientToolSpec[] = [
  {
    name: 'ask_user',
    description: 'Ask the person at the playground a question; they answer it on the waiting-runs board.',
    inputSchema: {
      type: 'object',
      properties: { question: { type: 'string', description: 'What to ask' } },
      required: ['question'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: { answer: { type: 'string' } },
      required: ['answer'],
    },
  },
];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses the client-tools editor text; the error names the entry and field and says what to write. */
export function parseClientTools(text: string): { tools: ClientToolSpec[] } | { error: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { error: `not JSON: ${(err as Error).message}` };
  }
  if (!Array.isArray(parsed)) return { error: 'expected a JSON array of { name, description, inputSchema, outputSchema? }' };
  const tools: ClientToolSpec[] = [];
  for (const [i, entry] of parsed.entries()) {
    if (!isRecord(entry)) return { error: `[${i}]: expected an object` };
    if (typeof entry['name'] !== 'string' || entry['name'].trim() === '') return { error: `[${i}].name: give the tool a non-empty name` };
    if (typeof entry['description'] !== 'string') return { error: `[${i}].description: expected a string` };
    if (!isRecord(entry['inputSchema'])) return { error: `[${i}].inputSchema: expected a JSON Schema object` };
    if (entry['outputSchema'] !== undefined && !isRecord(entry['outputSchema'])) {
      return { error: `[${i}].outputSchema: expected a JSON Schema object or leave it out` };
    }
    const tool: ClientToolSpec = { name: entry['name'], description: entry['description'], inputSchema: entry['inputSchema'] };
    if (isRecord(entry['outputSchema'])) tool.outputSchema = entry['outputSchema'];
    tools.push(tool);
  }
  return { tools };
}
