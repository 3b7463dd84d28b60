// Bounded, redacted previews of a nested call's input, output and error, kept in run history (the span detail
// and the trajectory export) for the run's lifetime; the session transcript's nested-activity rows never carry them.
import { redactSource } from '../source/redact.ts';

/**
 * A preview keeps this many characters of the value's JSON: enough to read a tool's arguments or the head of
 * its result, while a run with many large results stays small in memory and in every run.updated event.
 */
export const NESTED_PREVIEW_CHARS = 2_000;

/** The value as JSON, with secrets masked as in cell source, cut at NESTED_PREVIEW_CHARS with a marker that says so. */
export function previewOf(value: unknown): string {
  let json: string;
  try {
    json = JSON.stringify(value) ?? 'undefined';
  } catch {
    json = String(value);
  }
  return cut(redactSource(head(json)));
}

/** An error message, redacted and cut the same way. */
export function previewOfError(message: string): string {
  return cut(redactSource(head(message)));
}

/**
 * Redaction tokenizes its text, so only the head is redacted (a multi-megabyte result costs no more than a
 * small one); the slack past the cut lets a secret that straddles the cut still be recognized and masked.
 */
const REDACT_SLACK_CHARS = 512;
const LENGTH_MARK = '\u0000';

function head(text: string): string {
  if (text.length <= NESTED_PREVIEW_CHARS + REDACT_SLACK_CHARS) return text;
  return `${text.slice(0, NESTED_PREVIEW_CHARS + REDACT_SLACK_CHARS)}${LENGTH_MARK}${text.length}`;
}

function cut(text: string): string {
  const mark = text.lastIndexOf(LENGTH_MARK);
  const total = mark === -1 ? text.length : Number(text.slice(mark + 1));
  const body = mark === -1 ? text : text.slice(0, mark);
  if (total <= NESTED_PREVIEW_CHARS && body.length <= NESTED_PREVIEW_CHARS) return body;
  return `${body.slice(0, NESTED_PREVIEW_CHARS)}… (cut: ${total} characters, the preview keeps ${NESTED_PREVIEW_CHARS})`;
}
