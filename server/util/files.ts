// Files named on the command line or in the config: read only when they are regular files of a bounded size, and
// checked for writing before the work that would fill them. `/dev/zero` as a config or a cassette read forever.
import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** The text of `path`, or an Error saying why not: missing, not a regular file (a directory, device or pipe), or over `maxBytes`. */
export function readTextFile(path: string, maxBytes: number): string {
  const stat = statSync(path);
  if (!stat.isFile()) throw new Error(`${path} is not a regular file (a directory, device or pipe); name a file`);
  if (stat.size > maxBytes) throw new Error(`${path} is ${stat.size} bytes, over the ${maxBytes}-byte limit`);
  return readFileSync(path, 'utf8');
}

/** Why `path` cannot be written as a file (a directory, a missing or read-only folder), or undefined when it can. */
export function unwritableFileProblem(path: string): string | undefined {
  const file = resolve(path);
  try {
    if (statSync(file).isDirectory()) return `${path} is a directory; name a file`;
  } catch {
    // not there yet: its folder must be
  }
  try {
    accessSync(dirname(file), constants.W_OK);
  } catch {
    return `cannot write ${path}: its folder ${dirname(file)} is missing or not writable`;
  }
  return undefined;
}
