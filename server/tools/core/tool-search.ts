// Tool Search control tools `tool_search` and `tool_describe`: direct-mode discovery; code mode hides them (control: true).
import { ToolError } from '../../errors.ts';
import type { GatewayConfig } from '../../config/types.ts';
import type { JsonSchema, ToolDefinition, ToolSource } from '../types.ts';
import { tokenize } from './web.ts';

export interface ToolSearchHit {
  name: string;
  description: string;
  source: ToolSource;
  owner?: string;
  score: number;
}

export interface ToolDescription {
  name: string;
  description: string;
  source: ToolSource;
  owner?: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  executionMode: 'parallel' | 'sequential';
  approval: boolean;
}

/** Name hits weigh most, then description term overlap; control tools never list themselves. */
export function searchTools(tools: readonly ToolDefinition[], query: string, limit: number): ToolSearchHit[] {
  const terms = [...new Set(tokenize(query))];
  const needle = query.trim().toLowerCase();
  const hits: ToolSearchHit[] = [];
  for (const tool of tools) {
    if (tool.control) continue;
    const name = tool.name.toLowerCase();
    const nameWords = new Set(tokenize(tool.name.replace(/[_.-]/g, ' ')));
    const descriptionWords = new Set(tokenize(tool.description));
    let score = 0;
    if (needle && name === needle) score += 10;
    else if (needle && name.includes(needle)) score += 4;
    for (const term of terms) {
      if (nameWords.has(term)) score += 3;
      if (descriptionWords.has(term)) score += 1;
    }
    if (score > 0) hits.push({ name: tool.name, description: tool.description, source: tool.source, ...(tool.owner ? { owner: tool.owner } : {}), score });
  }
  hits.sort((a, b) => b.score - a.score || a.name.localeCompare(b.name));
  return hits.slice(0, limit);
}

/**
 * `getTools` returns the registry's tool list; when the call context carries the run's
 * effective tools (`ctx.tools`, after policy) those are searched instead, so denied tools stay invisible.
 */
export function createToolSearchTools(config: GatewayConfig, getTools: () => readonly ToolDefinition[]): ToolDefinition[] {
  const { searchDefaultLimit } = config.tools.codeMode;

  const toolSearch: ToolDefinition = {
    name: 'tool_search',
    description: `Search the available tools by keyword. Returns up to ${searchDefaultLimit} { name, description, source }; then call tool_describe for a schema.`,
    source: 'core',
    control: true,
    replaySafe: true,
    inputSchema: {
      type: 'object',
      properties: { query: { type: 'string', minLength: 1, description: 'Words describing what the tool should do.' } },
      required: ['query'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string' },
        results: {
          type: 'array',
          items: {
            type: 'object',
            properties: { name: { type: 'string' }, description: { type: 'string' }, source: { type: 'string' }, owner: { type: 'string' }, score: { type: 'number' } },
            required: ['name', 'description', 'source', 'score'],
            additionalProperties: false,
          },
        },
      },
      required: ['query', 'results'],
      additionalProperties: false,
    },
    async execute(input, ctx) {
      const query = (input as { query: string }).query;
      return { query, results: searchTools(ctx.tools ?? getTools(), query, searchDefaultLimit) };
    },
  };

  const toolDescribe: ToolDefinition = {
    name: 'tool_describe',
    description: 'Describe one tool by exact name: its description, input JSON Schema and output schema when known.',
    source: 'core',
    control: true,
    replaySafe: true,
    inputSchema: {
      type: 'object',
      properties: { name: { type: 'string', minLength: 1, description: 'Exact tool name from tool_search.' } },
      required: ['name'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        description: { type: 'string' },
        source: { type: 'string' },
        owner: { type: 'string' },
        inputSchema: { type: 'object' },
        outputSchema: { type: 'object' },
        executionMode: { type: 'string', enum: ['parallel', 'sequential'] },
        approval: { type: 'boolean' },
      },
      required: ['name', 'description', 'source', 'inputSchema', 'executionMode', 'approval'],
      additionalProperties: false,
    },
    async execute(input, ctx): Promise<ToolDescription> {
      const name = (input as { name: string }).name;
      const tools = (ctx.tools ?? getTools()).filter((tool) => !tool.control);
      const tool = tools.find((candidate) => candidate.name === name);
      if (!tool) {
        const close = searchTools(tools, name, 3).map((hit) => hit.name);
        throw new ToolError(
          `tool_describe: no tool named ${JSON.stringify(name)}${close.length ? `; did you mean ${close.join(', ')}?` : ''} Use tool_search to find exact names.`,
          'not_found',
        );
      }
      return {
        name: tool.name,
        description: tool.description,
        source: tool.source,
        ...(tool.owner ? { owner: tool.owner } : {}),
        inputSchema: tool.inputSchema,
        ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
        executionMode: tool.executionMode ?? 'parallel',
        approval: tool.approval === 'required',
      };
    },
  };

  return [toolSearch, toolDescribe];
}
