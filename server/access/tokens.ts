// Bearer-style secrets of the API (turn, session, operator tokens): minting them and comparing them in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 32 random bytes: unguessable for as long as any token here lives (a process lifetime at most). */
export const TOKEN_BYTES = 32;

/** A fresh random token, URL- and header-safe (base64url), prefixed so a leaked one says what it opens. */
export function newToken(prefix: string): string {
  return `${prefix}_${randomBytes(TOKEN_BYTES).toString('base64url')}`;
}

/** SHA-256 of a token: fixed length, so comparisons and map keys do not depend on the presented value's length. */
export function tokenDigest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** True when `presented` is `expected`, compared in constant time (digests of equal length, timingSafeEqual). */
export function tokensEqual(presented: string | undefined, expected: string): boolean {
  if (typeof presented !== 'string' || presented === '') return false;
  return timingSafeEqual(tokenDigest(presented), tokenDigest(expected));
}
