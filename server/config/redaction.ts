// The `redaction` section of the config file: patterns and secret environment variables for source masking (spec 01).
import { z } from 'zod';
import { expectedReason, strictObject } from './issues.ts';

export interface RedactionOptions {
  /** JavaScript regular expressions (sources, no slashes); every match in stored cell source becomes "***". */
  patterns: string[];
  /** Environment variables whose values are secrets: masked wherever they appear in stored cell source. */
  secretEnv: string[];
}

/** Patterns and variables one config may list: far past a real policy, small enough that masking stays cheap. */
export const MAX_REDACTION_ENTRIES = 64;
/** The longest pattern source: a pattern is a rule, not a list of values (register those with secretEnv). */
export const MAX_REDACTION_PATTERN_CHARS = 500;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Why `source` is not a pattern this Gateway can use, or undefined when it compiles. */
export function redactionPatternProblem(source: string): string | undefined {
  if (source === '') return 'an empty pattern would match everywhere; give a regular expression such as "acct-[0-9]{6}"';
  if (source.length > MAX_REDACTION_PATTERN_CHARS) return `the pattern is ${source.length} characters, over ${MAX_REDACTION_PATTERN_CHARS}; list secret values with secretEnv instead`;
  try {
    new RegExp(source, 'g');
  } catch (err) {
    return `not a JavaScript regular expression (${(err as Error).message}); write it without slashes, e.g. "acct-[0-9]{6}"`;
  }
  if (new RegExp(source).test('')) return 'the pattern matches the empty string, so it would mask nothing useful and everything between characters; make it match at least one character';
  return undefined;
}

export const redactionSchema = strictObject(
  {
    patterns: z
      .array(
        z
          .string({ error: (issue) => expectedReason('a string', 'a regular expression without slashes, e.g. "acct-[0-9]{6}"', issue.input) })
          .superRefine((source, ctx) => {
            const problem = redactionPatternProblem(source);
            if (problem) ctx.addIssue({ code: 'custom', message: problem });
          }),
        { error: (issue) => expectedReason('an array', 'list regular expressions, e.g. ["acct-[0-9]{6}"]', issue.input) },
      )
      .max(MAX_REDACTION_ENTRIES, { error: `list at most ${MAX_REDACTION_ENTRIES} patterns` })
      .optional(),
    secretEnv: z
      .array(
        z
          .string({ error: (issue) => expectedReason('a string', 'an environment variable name, e.g. "STRIPE_API_KEY"', issue.input) })
          .refine((name) => ENV_NAME.test(name), { error: (issue) => `${JSON.stringify(issue.input)} is not an environment variable name; write e.g. "STRIPE_API_KEY"` }),
        { error: (issue) => expectedReason('an array', 'list environment variable names, e.g. ["STRIPE_API_KEY"]', issue.input) },
      )
      .max(MAX_REDACTION_ENTRIES, { error: `list at most ${MAX_REDACTION_ENTRIES} variables` })
      .optional(),
  },
  'redaction: patterns, secretEnv',
);

export function resolveRedactionOptions(file: z.output<typeof redactionSchema> | undefined): RedactionOptions {
  return { patterns: file?.patterns ?? [], secretEnv: file?.secretEnv ?? [] };
}
