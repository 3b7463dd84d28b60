// attack: a script (curl, a HEAD, a 404 path, an API path asked for as a page, a page's fetch) asks the server for the operator cookie, to act on every client's runs and reach sources.*
// finding: issue 39, 5 (any request that was not the API got the operator cookie on loopback)
import type { HttpTarget } from '../http-corpus.ts';
import { api, send } from './kit.ts';

const BROWSER = { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8', 'sec-fetch-dest': 'document', 'sec-fetch-mode': 'navigate' };

export async function run(t: HttpTarget): Promise<string[]> {
  const problems: string[] = [];
  const asks: Array<[string, string, string, Record<string, string>]> = [
    ['curl', 'GET', '/', { accept: '*/*', 'user-agent': 'curl/8.5.0' }],
    ['HEAD', 'HEAD', '/', BROWSER],
    ['a 404 path', 'GET', '/nothing-here', BROWSER],
    ['an API path', 'GET', '/api/trpc/config.agents', BROWSER],
    ["a page's fetch", 'GET', '/', { ...BROWSER, 'sec-fetch-dest': 'empty', 'sec-fetch-mode': 'cors' }],
  ];
  for (const [what, method, path, headers] of asks) {
    const reply = await send(t.port, method, path, headers);
    if (reply.headers['set-cookie'] !== undefined) problems.push(`${what} was handed a cookie: ${String(reply.headers['set-cookie']).slice(0, 40)}...`);
  }
  // without the cookie, sources.* and other clients' runs stay shut
  const sources = await api(t.port, 'sources.list', undefined, { query: true });
  if (sources.status !== 403) problems.push(`sources.list answered ${sources.status} without the cookie`);
  return problems;
}
