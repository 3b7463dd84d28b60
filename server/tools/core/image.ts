// Core `image_generate`: a direct-only tool returning a structured image (an SVG drawn deterministically from the prompt).
import { createHash } from 'node:crypto';
import type { ToolDefinition } from '../types.ts';

/** The prompt is drawn as a caption; longer text would not fit the picture. */
export const MAX_IMAGE_CAPTION_CHARS = 60;

export interface ImageResult {
  type: 'image';
  mimeType: 'image/svg+xml';
  /** Base64 of the SVG document. */
  data: string;
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c);
}

/** Same prompt, same picture: colours and shapes come from a hash of the prompt. */
export function renderPromptSvg(prompt: string): string {
  const digest = createHash('sha256').update(prompt).digest();
  const byte = (i: number): number => digest[i % digest.length] ?? 0;
  const hue = Math.round((byte(0) / 255) * 360);
  const hue2 = (hue + 40 + byte(1)) % 360;
  const circles = Array.from({ length: 5 }, (_, i) => {
    const cx = 20 + (byte(2 + i * 3) % 216);
    const cy = 20 + (byte(3 + i * 3) % 130);
    const r = 10 + (byte(4 + i * 3) % 40);
    return `<circle cx="${cx}" cy="${cy}" r="${r}" fill="hsl(${(hue + i * 47) % 360},70%,65%)" fill-opacity="0.7"/>`;
  }).join('');
  const caption = prompt.length > MAX_IMAGE_CAPTION_CHARS ? `${prompt.slice(0, MAX_IMAGE_CAPTION_CHARS - 1)}…` : prompt;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="256" height="192" viewBox="0 0 256 192">` +
    `<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(${hue},60%,35%)"/>` +
    `<stop offset="1" stop-color="hsl(${hue2},60%,20%)"/></linearGradient></defs>` +
    `<rect width="256" height="192" fill="url(#g)"/>${circles}` +
    `<text x="128" y="180" font-family="sans-serif" font-size="11" fill="#fff" text-anchor="middle">${escapeXml(caption)}</text></svg>`
  );
}

export function createImageTool(): ToolDefinition {
  return {
    name: 'image_generate',
    description:
      'Generate an image from a text prompt (offline: draws a deterministic SVG from the prompt). Returns { type: "image", mimeType, data } with base64 data.',
    source: 'core',
    // A structured image result cannot cross the guest bridge as JSON a model can use: keep it model-visible.
    directOnly: true,
    inputSchema: {
      type: 'object',
      properties: { prompt: { type: 'string', minLength: 1, description: 'What to draw.' } },
      required: ['prompt'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: { type: { const: 'image' }, mimeType: { const: 'image/svg+xml' }, data: { type: 'string' } },
      required: ['type', 'mimeType', 'data'],
      additionalProperties: false,
    },
    async execute(input): Promise<ImageResult> {
      const svg = renderPromptSvg((input as { prompt: string }).prompt);
      return { type: 'image', mimeType: 'image/svg+xml', data: Buffer.from(svg, 'utf8').toString('base64') };
    },
  };
}
