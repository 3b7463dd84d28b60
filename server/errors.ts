// Error codes of the spec and the typed error classes the host throws.

import { CODE_MODE_ERROR_CODES } from './error-codes.mjs';

/** Codes a failed exec/wait result may carry (spec: tool surface, CodeModeErrorCode). */
export { CODE_MODE_ERROR_CODES };
export type CodeModeErrorCode = (typeof CODE_MODE_ERROR_CODES)[number];

/** A host-side failure that maps to one spec error code. Its message reaches the model: say what to do next. */
export class CodeModeError extends Error {
  override name = 'CodeModeError';
  constructor(
    readonly code: CodeModeErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Bad exec/wait input, an unknown run, a wrong session: always `invalid_input`. */
export class InvalidInputError extends CodeModeError {
  override name = 'InvalidInputError';
  constructor(message: string) {
    super('invalid_input', message);
  }
}

/** A tool implementation's own failure; crosses into the guest as a catchable error with this code. */
export class ToolError extends Error {
  override name = 'ToolError';
  constructor(
    message: string,
    readonly code: string = 'tool_error',
  ) {
    super(message);
  }
}

/** A config file that cannot be used. `path` names the field (dotted), `message` says why and what to do. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(path ? `${path}: ${reason}` : reason);
  }
}
