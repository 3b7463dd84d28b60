// A run's seed: the uint32 the guest's clock and Math.random derive from (prelude.js), checked or drawn here.
import { randomInt } from 'node:crypto';
import { InvalidInputError } from '../errors.ts';

/** Seeds are uint32: the guest's PRNG (mulberry32) has 32 bits of state. */
export const MAX_SEED = 0xffff_ffff;

/** A seed for a run that was given none. */
export function randomSeed(): number {
  return randomInt(0, MAX_SEED + 1);
}

/** `seed` as the caller gave it, checked (hostile input): undefined draws one. */
export function resolveSeed(seed: unknown, what = 'seed'): number {
  if (seed === undefined) return randomSeed();
  if (typeof seed !== 'number' || !Number.isInteger(seed) || seed < 0 || seed > MAX_SEED) {
    const shown = typeof seed === 'number' ? String(seed) : typeof seed;
    throw new InvalidInputError(`${what} must be an integer from 0 to ${MAX_SEED} (got ${shown.slice(0, 40)}); pass the seed of a run to repeat its time and randomness, or leave it out`);
  }
  return seed;
}
