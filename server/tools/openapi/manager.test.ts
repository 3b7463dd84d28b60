// OpenApiSources: an operation named like one of the Gateway's own tools, or like an earlier source's, is left out with the reason.
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../testing.ts';
import { OpenApiSources } from './manager.ts';

/** A document whose operations are named `names`, calling http://127.0.0.1:9 (never called here). */
function documentText(names: string[]): string {
  const paths = Object.fromEntries(names.map((name) => [`/${name}`, { get: { operationId: name, responses: { '200': { description: 'ok' } } } }]));
  return JSON.stringify({ openapi: '3.0.3', info: { title: 't', version: '1' }, servers: [{ url: 'http://127.0.0.1:9' }], paths });
}

describe('OpenApiSources and the names of other tools', () => {
  it('an operation named like a Gateway tool (read, exec) or an earlier source\'s is left out, said in its source\'s skipped list; the rest are offered', async () => {
    const sources = new OpenApiSources({ baseDir: REPO_ROOT, reservedNames: () => ['read', 'exec'] });
    sources.add('first', { documentText: documentText(['read', 'exec', 'listItems']), baseUrl: 'http://127.0.0.1:9' });
    sources.add('second', { documentText: documentText(['listItems', 'getItem']), baseUrl: 'http://127.0.0.1:9' });
    await sources.ready();
    expect(sources.tools().map((t) => [t.owner, t.name])).toEqual([
      ['first', 'listItems'],
      ['second', 'getItem'],
    ]);
    const [first, second] = sources.views();
    expect(first).toMatchObject({ state: 'connected', toolCount: 1 });
    expect(first?.skipped).toEqual([
      `"read": the name is taken by the Gateway's tool "read"; give the operation another operationId`,
      `"exec": the name is taken by the Gateway's tool "exec"; give the operation another operationId`,
    ]);
    expect(second).toMatchObject({ toolCount: 1, skipped: [`"listItems": the name is taken by the "first" OpenAPI source's "listItems"; give the operation another operationId`] });
    sources.close();
  });
});
