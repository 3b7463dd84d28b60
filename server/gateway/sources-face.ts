// The sources face: live tool sources (list, add, settle, remove, save) over the source registry (gateway/sources.ts).
import type { SourcesFace } from '../gateway-types.ts';
import type { GatewayParts } from './parts.ts';

/** `assertOpen` refuses new sources once the Gateway is shutting down. */
export function sourcesFace(parts: Pick<GatewayParts, 'sources'>, assertOpen: () => void): SourcesFace {
  const { sources } = parts;
  return {
    sources: () => sources.list(),
    sourceCommandLine: (req) => sources.commandLine(req),
    addSource: (req, context) => {
      assertOpen();
      return sources.add(req, context);
    },
    sourceSettled: (name) => sources.settled(name),
    removeSource: (name) => sources.remove(name),
    saveSource: (name) => sources.save(name),
  };
}
