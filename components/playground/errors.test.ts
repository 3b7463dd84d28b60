// Tests for the page's one-sentence error messages.
import { TRPCClientError } from '@trpc/client';
import { describe, expect, it } from 'vitest';
import { errorMessage } from './errors.ts';

function apiError(code: string, message: string): TRPCClientError<never> {
  return TRPCClientError.from({ error: { message, code: -32001, data: { code, httpStatus: 401 } } });
}

describe('errorMessage', () => {
  it('on UNAUTHORIZED (the page lost its operator cookie to a server restart): adds that a reload fixes it', () => {
    expect(errorMessage(apiError('UNAUTHORIZED', 'exec needs the turnToken'))).toBe('exec needs the turnToken (if the server restarted, reload the page)');
  });
  it('on any other API error: the server message as is', () => {
    expect(errorMessage(apiError('BAD_REQUEST', 'input.code: expected string'))).toBe('input.code: expected string');
  });
});
