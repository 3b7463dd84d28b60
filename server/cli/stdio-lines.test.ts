// The line guard of `codemode mcp`'s stdin: whole lines pass, a line past the limit is dropped and reported, whatever the chunking.
import { describe, expect, it } from 'vitest';
import { LineGuard } from './stdio-lines.ts';

async function through(chunks: string[], max: number): Promise<{ out: string; dropped: number[] }> {
  const dropped: number[] = [];
  const guard = new LineGuard((bytes) => dropped.push(bytes), max);
  let out = '';
  guard.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const ended = new Promise((resolve) => guard.on('end', resolve));
  for (const chunk of chunks) guard.write(Buffer.from(chunk));
  guard.end();
  await ended;
  return { out, dropped };
}

describe('LineGuard', () => {
  it('passes lines whole, however they were cut into chunks', async () => {
    expect(await through(['{"a":', '1}\n{"b"', ':2}\n'], 64)).toEqual({ out: '{"a":1}\n{"b":2}\n', dropped: [] });
  });

  it('drops a line past the limit (its newline too) and reports its size; the lines around it pass', async () => {
    const long = 'x'.repeat(40);
    expect(await through(['ok1\n', long.slice(0, 15), long.slice(15), '\nok2\n'], 16)).toEqual({ out: 'ok1\nok2\n', dropped: [41] });
  });

  it('a line of exactly the limit passes; an unfinished long line at the end is reported', async () => {
    expect(await through(['123456789012345\n'], 16)).toEqual({ out: '123456789012345\n', dropped: [] });
    expect(await through(['y'.repeat(20)], 16)).toEqual({ out: '', dropped: [20] });
  });
});
