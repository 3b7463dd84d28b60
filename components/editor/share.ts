// Share links: a cell's code and language in the URL hash (`#lang=ts&code=<base64url>`), so a link reproduces it.

export type CellLanguage = 'javascript' | 'typescript';

export interface SharedCell {
  code: string;
  language: CellLanguage;
}

function toBase64Url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(encoded: string): string {
  const base64 = encoded.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  const bytes = Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

/** The hash (with its leading `#`) that reproduces `cell`. */
export function encodeCellHash(cell: SharedCell): string {
  const lang = cell.language === 'typescript' ? 'ts' : 'js';
  return `#lang=${lang}&code=${toBase64Url(cell.code)}`;
}

/** The cell a hash describes, or undefined when the hash holds none (or a damaged one). */
export function decodeCellHash(hash: string): SharedCell | undefined {
  const params = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
  const encoded = params.get('code');
  if (encoded === null) return undefined;
  let code: string;
  try {
    code = fromBase64Url(encoded);
  } catch {
    return undefined;
  }
  const lang = params.get('lang');
  return { code, language: lang === 'ts' || lang === 'typescript' ? 'typescript' : 'javascript' };
}
