// E2E (issue 16): an agent's MCP session on the playground's /mcp shows on the boards labelled with its client name, and its approval is decided in the page's approvals panel.
import { expect, test } from './fixtures.ts';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { openPlayground } from './helpers.ts';

const CLIENT_NAME = 'e2e-mcp-agent';
/** Shell exec needs the operator's approval; the echoed word finds this run's card among others. */
const APPROVAL_CELL = `const r = await exec({ command: 'echo', args: ['from-mcp-agent'] });\nreturn r.stdout.trim();`;

test('an MCP client\'s run is on the runs list under its name, and its approval is decided in the approvals panel ("all turns")', async ({ page, baseURL }) => {
  await openPlayground(page);
  // the agent's turn is not the page's: the page shows it with "all turns"
  await page.getByRole('checkbox', { name: /all turns/ }).check();

  const client = new Client({ name: CLIENT_NAME, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', baseURL));
  await client.connect(transport);
  try {
    const progress: Progress[] = [];
    const pending = client.callTool({ name: 'exec', arguments: { code: APPROVAL_CELL } }, undefined, { onprogress: (p) => progress.push(p), timeout: 120_000 });

    const card = page.getByTestId('approval').filter({ hasText: 'from-mcp-agent' });
    await expect(card).toBeVisible();
    await expect(card.getByTestId('approval-tool')).toHaveText('exec');
    // the run is on the list, labelled with the client's name from initialize
    const row = page.getByTestId('run-row').filter({ has: page.getByTestId('run-client').filter({ hasText: CLIENT_NAME }) });
    await expect(row.first()).toBeVisible();

    await card.getByTestId('approval-approve').click();
    const reply = await pending;
    expect(reply.structuredContent).toMatchObject({ status: 'completed', value: 'from-mcp-agent' });
    expect(progress.map((p) => p.message)).toContainEqual(expect.stringContaining('awaits approval'));
    await expect(card).toHaveCount(0);
    await expect(row.first().getByTestId('run-client')).toHaveText(CLIENT_NAME);
  } finally {
    await transport.terminateSession().catch(() => undefined);
    await client.close();
  }
});
