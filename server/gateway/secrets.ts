// The secrets a Gateway holds, registered for source masking (spec 01: "registered secrets, and configured redaction patterns").
//
// Every credential the config gives the Gateway is a secret a cell could paste (an agent that read it somewhere):
// the access tokens, MCP servers' secret-named environment variables and auth headers, OpenAPI sources' auth
// values, the OTLP exporter's auth headers, and the variables `redaction.secretEnv` names. Sources added at
// runtime register theirs when they are added (SourceRegistry). A value is registered only when its name says it
// is a secret (isSecretName: `API_KEY`, `Authorization`), so a server's `PORT=8080` or `REGION=eu-west-1` is not
// masked in every cell that mentions it.
import type { GatewayConfig, McpServerConfig, OpenApiSourceConfig } from '../config/types.ts';
import { isSecretName, RedactionRegistry } from '../cell/redact.ts';

/** The registry for `config`, every secret it holds registered; `env` for the variables it names. */
export function redactionRegistry(config: GatewayConfig, env: Readonly<Record<string, string | undefined>> = process.env): RedactionRegistry {
  const registry = new RedactionRegistry((config.redaction?.patterns ?? []).map((source) => new RegExp(source, 'g')));
  registry.register(config.server.accessToken);
  registry.register(env.CODEMODE_ACCESS_TOKEN);
  registry.register(config.mcpServer.token);
  for (const name of config.redaction?.secretEnv ?? []) registry.register(env[name]);
  for (const server of Object.values(config.mcp.servers)) registerMcpServerSecrets(registry, server);
  for (const source of Object.values(config.sources?.openapi ?? {})) registerOpenApiSecrets(registry, source, env);
  for (const [name, value] of Object.entries(config.telemetry?.otlp?.headers ?? {})) if (isSecretName(name)) registry.register(value);
  return registry;
}

/** An MCP server's secret-named environment variables (stdio) or auth headers (HTTP). */
export function registerMcpServerSecrets(registry: RedactionRegistry, server: Partial<Record<'env' | 'headers', Record<string, string>>> | McpServerConfig): void {
  const named = { ...('env' in server ? server.env : {}), ...('headers' in server ? server.headers : {}) };
  for (const [name, value] of Object.entries(named ?? {})) if (isSecretName(name)) registry.register(value);
}

/** An OpenAPI source's auth value (given, or read from the variable it names). */
export function registerOpenApiSecrets(registry: RedactionRegistry, source: Pick<OpenApiSourceConfig, 'auth'>, env: Readonly<Record<string, string | undefined>> = process.env): void {
  registry.register(source.auth?.value);
  if (source.auth?.env) registry.register(env[source.auth.env]);
}
