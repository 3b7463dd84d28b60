// Workspace confinement: turns a caller's relative path into a real path that cannot leave the workspace folder.
import { realpathSync } from 'node:fs';
import { isAbsolute, join, relative, sep, win32 } from 'node:path';
import { ToolError } from '../../errors.ts';

/** Code a confinement refusal carries, so guest code can tell it from a missing file. */
export const OUTSIDE_WORKSPACE_CODE = 'outside_workspace';

export function outsideWorkspace(tool: string, path: string): ToolError {
  return new ToolError(
    `${tool}: path ${JSON.stringify(path)} is outside the workspace. Only paths relative to the workspace folder are allowed ` +
      `(for example "README.md" or "notes/todo.md"): no "..", no absolute paths, no links that lead out of it.`,
    OUTSIDE_WORKSPACE_CODE,
  );
}

/** Syntactic check shared by read, grep and the shell tool's arguments: absolute paths and ".." segments never pass. */
export function isConfinedSpelling(path: string): boolean {
  if (path.includes('\0')) return false;
  if (isAbsolute(path) || win32.isAbsolute(path) || path.startsWith('~')) return false;
  return !path.split(/[\\/]+/).some((segment) => segment === '..');
}

/** `candidate` (a real path) is `root` or lies under it. */
export function isInside(root: string, candidate: string): boolean {
  if (candidate === root) return true;
  const rel = relative(root, candidate);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
}

export interface ResolvedWorkspacePath {
  /** Real absolute path (links resolved). */
  real: string;
  /** Path relative to the workspace root, with forward slashes ("" for the root). */
  relative: string;
}

/**
 * Resolves `path` against the workspace; refuses anything that escapes, including through symlinks.
 * A missing target is a ToolError that says how to find files.
 */
export function resolveWorkspacePath(tool: string, workspaceDir: string, path: string): ResolvedWorkspacePath {
  if (!isConfinedSpelling(path)) throw outsideWorkspace(tool, path);
  let root: string;
  try {
    root = realpathSync(workspaceDir);
  } catch {
    throw new ToolError(`${tool}: the workspace folder is missing on the host; ask the operator to check the "workspace" config field.`);
  }
  let real: string;
  try {
    real = realpathSync(join(root, path));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new ToolError(
        `${tool}: no file or folder ${JSON.stringify(path)} in the workspace; use grep({ pattern }) or exec({ command: "ls" }) to find paths.`,
        'not_found',
      );
    }
    throw new ToolError(`${tool}: cannot open ${JSON.stringify(path)} (${code ?? 'error'}).`);
  }
  if (!isInside(root, real)) throw outsideWorkspace(tool, path);
  return { real, relative: relative(root, real).split(sep).join('/') };
}
