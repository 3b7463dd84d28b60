// The demo stdio MCP server "demo": a few tools, resources and prompts for MCP.demo.<tool>() in the playground and tests.
//
// Written with the official SDK, as a third-party server would be. `crash` exits the process while
// its call is in flight, so the Gateway's crash handling and reconnect can be seen and tested.
// Run it by hand with `node demo/mcp/server.mjs` (it speaks JSON-RPC on stdin/stdout).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

/** The longest `slow` may sleep: long enough to outlast an exec deadline, short enough not to hang a demo. */
const MAX_SLOW_MS = 120_000;

/** A tiny user table for `lookup-user` (fixture data, not a real directory). */
const USERS = {
  u1: { id: 'u1', name: 'Ada Lovelace', email: 'ada@example.test', team: 'analytics' },
  u2: { id: 'u2', name: 'Grace Hopper', email: 'grace@example.test', team: 'compilers' },
  u3: { id: 'u3', name: 'Alan Turing', email: 'alan@example.test', team: 'research' },
};

const server = new McpServer({ name: 'demo', version: '1.0.0' });

server.registerTool(
  'echo',
  {
    description: 'Echo the given text back as text content.',
    inputSchema: { text: z.string().describe('Text to echo back') },
  },
  async ({ text }) => ({ content: [{ type: 'text', text }] }),
);

server.registerTool(
  'add',
  {
    description: 'Add two numbers; the sum is returned as structured content.',
    inputSchema: { a: z.number().describe('First addend'), b: z.number().describe('Second addend') },
    outputSchema: { sum: z.number().describe('a + b') },
  },
  async ({ a, b }) => {
    const structuredContent = { sum: a + b };
    return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent };
  },
);

server.registerTool(
  'lookup-user',
  {
    description: 'Look up a demo user by id (u1, u2, u3). Unknown ids give an isError result.',
    inputSchema: { id: z.string().describe('User id, e.g. "u1"') },
    outputSchema: {
      id: z.string(),
      name: z.string(),
      email: z.string(),
      team: z.string(),
    },
  },
  async ({ id }) => {
    const user = Object.hasOwn(USERS, id) ? USERS[/** @type {keyof typeof USERS} */ (id)] : undefined;
    if (!user) return { isError: true, content: [{ type: 'text', text: `no user "${id}"; known ids: ${Object.keys(USERS).join(', ')}` }] };
    return { content: [{ type: 'text', text: `${user.name} <${user.email}>` }], structuredContent: user };
  },
);

server.registerTool(
  'slow',
  {
    description: `Wait ms milliseconds (at most ${MAX_SLOW_MS}), then answer; for watching a call outlast the exec deadline.`,
    inputSchema: { ms: z.number().int().min(0).max(MAX_SLOW_MS).describe('How long to wait, in milliseconds') },
  },
  async ({ ms }, extra) => {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, ms);
      extra.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(new Error('cancelled'));
      });
    });
    return { content: [{ type: 'text', text: `waited ${ms} ms` }] };
  },
);

server.registerTool(
  'crash',
  {
    description: 'Exit the server process while this call is in flight (to try crash handling and reconnect).',
    inputSchema: {},
  },
  async () => {
    // Exit before answering: the client sees its connection close mid-call.
    setImmediate(() => process.exit(3));
    return new Promise(() => {});
  },
);

server.registerResource(
  'readme',
  'demo://readme',
  { description: 'What this demo server offers', mimeType: 'text/markdown' },
  async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/markdown', text: '# demo MCP server\n\nTools: echo, add, lookup-user, slow, crash.\n' }],
  }),
);

server.registerResource(
  'users',
  'demo://users',
  { description: 'The demo user table as JSON', mimeType: 'application/json' },
  async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(Object.values(USERS)) }],
  }),
);

server.registerPrompt(
  'greet',
  { description: 'Greet a user by name', argsSchema: { name: z.string() } },
  ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${name}.` } }] }),
);

server.registerPrompt(
  'summarize-user',
  { description: 'Summarize one demo user', argsSchema: { id: z.string() } },
  ({ id }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Summarize the demo user ${id} in one line.` } }] }),
);

await server.connect(new StdioServerTransport());
