// Test helper for the config modules: run something that must throw a ConfigError, and return it.
import { ConfigError } from '../errors.ts';

export function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError, nothing was thrown');
}
