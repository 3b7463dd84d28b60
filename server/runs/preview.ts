// Bounded, redacted previews of a nested call's input, output and error, kept in run history (the span detail
// and the trajectory export) for the run's lifetime; the session transcript's nested-activity rows never carry them.
import { redactSource } from '../cell/redact.ts';
import { memoShortText } from '../util/text-memo.ts';

/**
 * A preview keeps this many characters of the value's JSON: enough to read a tool's arguments or the head of
 * its result, while a run with many large results stays small in memory and in every run.updated event.
 */
export const NESTED_PREVIEW_CHARS = 2_000;

/**
 * Redaction tokenizes its text, so only the head is redacted (a multi-megabyte result costs no more than a
 * small one); the slack past the cut lets a secret that straddles the cut still be recognized and masked.
 */
const REDACT_SLACK_CHARS = 512;

/** The value as JSON, with secrets masked as in cell source, cut at NESTED_PREVIEW_CHARS with a marker that says so. */
export function previewOf(value: unknown): string {
  let json: string;
  try {
    json = JSON.stringify(value) ?? 'undefined';
  } catch {
    json = String(value);
  }
  return bounded(json);
}

/** The preview of a value whose compact JSON the caller already holds (a reply the dispatcher serialized). */
export function previewOfJson(json: string): string {
  return bounded(json);
}

/** An error message, redacted and cut the same way. */
export function previewOfError(message: string): string {
  return bounded(message);
}

/** Short texts (a loop's repeated small inputs and results) are redacted once and remembered. */
const bounded = memoShortText(boundedUncached, 256, 2048);

function boundedUncached(text: string): string {
  const total = text.length;
  const redacted = redactSource(total > NESTED_PREVIEW_CHARS + REDACT_SLACK_CHARS ? text.slice(0, NESTED_PREVIEW_CHARS + REDACT_SLACK_CHARS) : text);
  if (total <= NESTED_PREVIEW_CHARS && redacted.length <= NESTED_PREVIEW_CHARS) return redacted;
  return `${redacted.slice(0, NESTED_PREVIEW_CHARS)}… (cut: ${total} characters, the preview keeps ${NESTED_PREVIEW_CHARS})`;
}
