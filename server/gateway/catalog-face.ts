// The catalog face: the configured agents, the surface and catalog a turn would get, and the tool sources' readiness and changes.
import { catalogView, mcpServerViews } from '../catalog/view.ts';
import { agentCodeModeOptions, agentModel } from '../config/activation.ts';
import type { CatalogFace } from '../gateway-types.ts';
import type { GatewayParts } from './parts.ts';

export function catalogFace(parts: Pick<GatewayParts, 'config' | 'loaded' | 'turns' | 'mcp' | 'openapi'>): CatalogFace {
  const { config, loaded, turns, mcp, openapi } = parts;
  const mcpServers = () => mcpServerViews(mcp?.views() ?? []);
  return {
    agents: () =>
      config.agents.list.map((a) => ({
        id: a.id,
        ...(a.name ? { name: a.name } : {}),
        model: agentModel(config, a),
        executor: agentCodeModeOptions(config, a).executor,
      })),
    surface: (req) => turns.effective(req).surface,
    catalog: (req) => catalogView({ ...turns.effective(req), mcpServers: mcpServers(), pluginErrors: loaded.pluginErrors }),
    mcpServers,
    // the Gateway starts without waiting for MCP or OpenAPI: whatever starts a turn awaits this first
    mcpReady: async () => {
      await Promise.all([mcp?.ready(), openapi.firstReady()]);
    },
    toolSourcesRevision: () => (mcp?.revision() ?? 0) + openapi.revision(),
    onToolSourcesChanged: (listener) => {
      // the config is read once at start: MCP servers and OpenAPI documents (configured or added live) are what change
      const offMcp = mcp?.onToolsChanged(listener);
      const offOpenApi = openapi.onChanged(listener);
      return () => {
        offMcp?.();
        offOpenApi();
      };
    },
  };
}
