// Tests for the links' fetch: plain-text refusals (413 and the like) become errors that say what happened.
import { describe, expect, it } from 'vitest';
import { ApiHttpError, checkedFetch, procedureOf } from './apiFetch.ts';

const refusal = 'the request body is 1572900 bytes, over the limit of 1048576 bytes (server.maxRequestBodyBytes); send a smaller request (a smaller cell, fewer client tools)';

function answering(res: Response): typeof fetch {
  return () => Promise.resolve(res);
}

describe('checkedFetch', () => {
  it('on a 413 in plain text: throws an error naming the procedure, the limit and the size sent, not a JSON parse error', async () => {
    const fetcher = checkedFetch(answering(new Response(refusal, { status: 413, headers: { 'content-type': 'text/plain' } })));
    const body = 'x'.repeat(1536 * 1024);
    const error = await fetcher('/api/trpc/exec', { method: 'POST', body }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiHttpError);
    const message = (error as Error).message;
    expect(message).toContain('exec: the server refused the request (HTTP 413)');
    expect(message).toContain('server.maxRequestBodyBytes');
    expect(message).toContain('This request was 1572864 bytes (1.5 MB)');
    expect(message).toContain('maxSourceBytes');
  });
  it('on a 413 for another procedure: no word about cells', async () => {
    const fetcher = checkedFetch(answering(new Response(refusal, { status: 413 })));
    const error = (await fetcher('/api/trpc/sources.add', { method: 'POST', body: '{}' }).catch((e: unknown) => e)) as Error;
    expect(error.message).toContain('sources.add: the server refused the request (HTTP 413)');
    expect(error.message).not.toContain('maxSourceBytes');
  });
  it("passes tRPC's own JSON errors and successes through untouched", async () => {
    const json = new Response('{"error":{}}', { status: 400, headers: { 'content-type': 'application/json' } });
    expect(await checkedFetch(answering(json))('/api/trpc/exec')).toBe(json);
    const ok = new Response('{}', { status: 200 });
    expect(await checkedFetch(answering(ok))('/api/trpc/exec')).toBe(ok);
  });
});

describe('procedureOf', () => {
  it('reads the procedure from a tRPC URL, with or without a query', () => {
    expect(procedureOf('http://127.0.0.1:3000/api/trpc/runs.get?input=%7B%7D')).toBe('runs.get');
    expect(procedureOf('/api/trpc/exec')).toBe('exec');
  });
});
