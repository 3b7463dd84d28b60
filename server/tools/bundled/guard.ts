// Bundled plugin `guard`: a demo before_tool_call hook that blocks core `read` of files under a `secrets/` folder.
//
// It exists to make hook denial demonstrable (demo/workspace/secrets/token.txt).
// It is a policy example, not a secrets boundary: other tools (grep over the
// whole workspace, an approved shell `cat`) are not covered by it.
import type { BeforeToolCallEvent, CodeModePlugin } from '../plugins.ts';

/** A `secrets` path segment anywhere in the path (`secrets/x`, `./secrets/x`, `a/secrets/x`). */
export const GUARDED_PATH = /(^|\/)secrets(\/|$)/;

export function isGuardedRead(event: BeforeToolCallEvent): boolean {
  if (event.tool !== 'read' || event.source !== 'core') return false;
  const input = event.input;
  if (typeof input !== 'object' || input === null) return false;
  const path = (input as Record<string, unknown>)['path'];
  if (typeof path !== 'string') return false;
  const normalized = path.replace(/\\/g, '/').replace(/\/{2,}/g, '/').replace(/^(\.\/)+/, '');
  return GUARDED_PATH.test(normalized);
}

export function createGuardPlugin(): CodeModePlugin {
  return {
    id: 'guard',
    tools: [],
    hooks: {
      before_tool_call(event) {
        if (!isGuardedRead(event)) return undefined;
        const path = String((event.input as Record<string, unknown>)['path']);
        return {
          block: `reading ${JSON.stringify(path)} is blocked by the guard plugin: files under secrets/ are off limits to agents; ask the operator if you need a credential.`,
        };
      },
    },
  };
}
