// Bundled plugin `notes`: sequential `notes_append`, a per-session notes list held by the plugin instance (in memory).
import { ToolError } from '../../errors.ts';
import type { CodeModePlugin } from '../plugins.ts';

/** One note is a line of thought, not a document. */
export const MAX_NOTE_CHARS = 2000;
/** The list lives in Gateway memory; a runaway loop must not grow it without bound. */
export const MAX_NOTES_PER_SESSION = 1000;

export interface NotesPlugin extends CodeModePlugin {
  /** Notes of one session, oldest first (for the UI and tests). */
  notesOf(sessionId: string): readonly string[];
}

export function createNotesPlugin(): NotesPlugin {
  const bySession = new Map<string, string[]>();
  return {
    id: 'notes',
    notesOf: (sessionId) => [...(bySession.get(sessionId) ?? [])],
    tools: [
      {
        name: 'notes_append',
        description: `Append a note to this session's notes list; returns { count } (notes so far in this session). Calls run one at a time, in order.`,
        source: 'bundled_plugin',
        owner: 'notes',
        // Appends must land in call order even when a cell fires several without awaiting.
        executionMode: 'sequential',
        inputSchema: {
          type: 'object',
          properties: { text: { type: 'string', minLength: 1, maxLength: MAX_NOTE_CHARS, description: 'The note.' } },
          required: ['text'],
          additionalProperties: false,
        },
        outputSchema: {
          type: 'object',
          properties: { count: { type: 'integer' } },
          required: ['count'],
          additionalProperties: false,
        },
        async execute(input, ctx) {
          const notes = bySession.get(ctx.sessionId) ?? [];
          if (notes.length >= MAX_NOTES_PER_SESSION) {
            throw new ToolError(`notes_append: this session already holds ${MAX_NOTES_PER_SESSION} notes; summarise instead of appending more.`, 'limit_exceeded');
          }
          notes.push((input as { text: string }).text);
          bySession.set(ctx.sessionId, notes);
          return { count: notes.length };
        },
      },
    ],
  };
}
