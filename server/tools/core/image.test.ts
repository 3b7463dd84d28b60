// Tests for image_generate: a direct-only tool whose structured image result is an SVG derived from the prompt.
import { describe, expect, it } from 'vitest';
import { callTool } from '../testing.ts';
import { type ImageResult, createImageTool } from './image.ts';

const image = createImageTool();

describe('image_generate', () => {
  it('is direct-only', () => {
    expect(image.directOnly).toBe(true);
  });

  it('on a prompt: returns a base64 SVG image result that shows the prompt', async () => {
    const result = (await callTool(image, { prompt: 'a red <bike> & rain' })) as ImageResult;
    expect(result.type).toBe('image');
    expect(result.mimeType).toBe('image/svg+xml');
    const svg = Buffer.from(result.data, 'base64').toString('utf8');
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('a red &lt;bike&gt; &amp; rain');
  });

  it('on the same prompt: draws the same picture; on another prompt: a different one', async () => {
    const a = (await callTool(image, { prompt: 'sunset over Lisbon' })) as ImageResult;
    const b = (await callTool(image, { prompt: 'sunset over Lisbon' })) as ImageResult;
    const c = (await callTool(image, { prompt: 'snow in Oslo' })) as ImageResult;
    expect(a.data).toBe(b.data);
    expect(c.data).not.toBe(a.data);
  });
});
