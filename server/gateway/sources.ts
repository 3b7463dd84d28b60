// Live tool sources: MCP servers (stdio, Streamable HTTP) and OpenAPI documents added and removed at runtime,
// each with its state, and "save to config" that writes one into the config file (the old file kept as .bak).
//
// Security (docs/security.md): the API edge lets only the operator call these. A stdio server runs a
// program on the Gateway's machine, so adding one also needs the exact command line echoed back as
// confirmation, is refused while the server is exposed beyond loopback unless the config sets
// sources.allowStdioWhenExposed, and is logged. Turns prepared before a change keep their catalog; the
// next turn sees the new one.
import type { RedactionRegistry } from '../cell/redact.ts';
import { registerMcpServerSecrets, registerOpenApiSecrets } from './secrets.ts';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { readConfigJson, writeConfigJson } from '../config/write.ts';
import { isHttpUrl, SOURCE_NAME } from '../config/sources-schema.ts';
import type { GatewayConfig, McpServerConfig, OpenApiSourceConfig } from '../config/types.ts';
import { ConfigError, InvalidInputError } from '../errors.ts';
import type { McpManager } from '../tools/mcp/manager.ts';
import type { McpServerStatus } from '../tools/mcp/types.ts';
import type { OpenApiSources } from '../tools/openapi/manager.ts';
import { isRecord } from '../util/is-record.mjs';
import type { AddSourceRequest, SaveSourceResult, SourceKind, SourceView } from '../tools/sources-types.ts';

export type { AddSourceRequest, SaveSourceResult, SourceKind, SourceView };

const SAFE_ARG = /^[A-Za-z0-9_\-+=.,/:@%]+$/;

function quote(arg: string): string {
  return arg !== '' && SAFE_ARG.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The exact command line a stdio request would run, as the operator confirms it: env assignments, command, args (POSIX-quoted). */
export function stdioCommandLine(req: { command: string; args?: string[]; env?: Record<string, string> }): string {
  const env = Object.entries(req.env ?? {}).map(([k, v]) => `${k}=${quote(v)}`);
  return [...env, quote(req.command), ...(req.args ?? []).map(quote)].join(' ');
}

function mcpDetail(config: McpServerConfig): string {
  return 'url' in config ? config.url : stdioCommandLine(config);
}

export class SourceRegistry {
  /** Sources added at runtime and not saved yet. */
  private readonly added = new Map<string, AddSourceRequest>();
  private readonly kinds = new Map<string, SourceKind>();

  constructor(
    private readonly deps: {
      config: GatewayConfig;
      mcp: McpManager | undefined;
      openapi: OpenApiSources;
      log?: (line: string) => void;
      /** Source masking: an added source's credentials (secret-named env and headers, an OpenAPI auth value) are registered. */
      redaction?: RedactionRegistry;
    },
  ) {
    for (const [name, server] of Object.entries(deps.config.mcp.servers)) this.kinds.set(name, 'url' in server ? 'mcp-http' : 'mcp-stdio');
    for (const name of Object.keys(deps.config.sources?.openapi ?? {})) this.kinds.set(name, 'openapi');
  }

  list(): SourceView[] {
    const views: SourceView[] = [];
    const mcpViews = new Map<string, McpServerStatus>((this.deps.mcp?.views() ?? []).map((v) => [v.name, v]));
    for (const name of this.deps.mcp?.names() ?? []) {
      const v = mcpViews.get(name);
      const request = this.added.get(name);
      const config = request ? undefined : this.deps.config.mcp.servers[name];
      const detail = request?.kind === 'mcp-stdio' ? stdioCommandLine(request) : request?.kind === 'mcp-http' ? request.url : config ? mcpDetail(config) : '';
      views.push({
        name,
        kind: this.kinds.get(name) ?? (v?.transport === 'http' ? 'mcp-http' : 'mcp-stdio'),
        origin: request ? 'added' : 'config',
        state: v?.state ?? 'connecting',
        ...(v?.error ? { error: v.error } : {}),
        toolCount: v?.toolCount ?? 0,
        detail,
        ...(v?.skipped?.length ? { skipped: v.skipped } : {}),
      });
    }
    for (const v of this.deps.openapi.views()) {
      views.push({
        name: v.name,
        kind: 'openapi',
        origin: this.added.has(v.name) ? 'added' : 'config',
        state: v.state,
        ...(v.error ? { error: v.error } : {}),
        toolCount: v.toolCount,
        detail: v.baseUrl ? `${v.document} -> ${v.baseUrl}` : v.document,
        ...(v.skipped ? { skipped: v.skipped } : {}),
      });
    }
    return views;
  }

  /** The command line a stdio request would run (what the page shows for confirmation). */
  commandLine(req: { command: string; args?: string[]; env?: Record<string, string> }): string {
    return stdioCommandLine(req);
  }

  /** Starts the source in the background; returns its first view (usually `connecting`). */
  add(req: AddSourceRequest, context: { exposed: boolean }): SourceView {
    if (!isRecord(req) || typeof req.kind !== 'string') throw new InvalidInputError('a source needs "kind": "mcp-stdio", "mcp-http" or "openapi"');
    const name = req.name;
    if (typeof name !== 'string' || !SOURCE_NAME.test(name)) {
      throw new InvalidInputError(`source name ${JSON.stringify(name)} is not usable; use letters, digits, "_", "-" or "." (up to 64), starting with a letter or digit`);
    }
    if (this.kinds.has(name)) throw new InvalidInputError(`a source named "${name}" already exists; remove it first or pick another name`);
    if (req.kind === 'mcp-stdio') {
      if (context.exposed && !this.deps.config.sources?.allowStdioWhenExposed) {
        throw new InvalidInputError(
          'adding a stdio MCP server runs a program on the Gateway machine, and this server is exposed beyond loopback; ' +
            'set "sources": { "allowStdioWhenExposed": true } in the config file to allow it, or add the server to mcp.servers there',
        );
      }
      const line = stdioCommandLine(req);
      if (req.confirmCommandLine !== line) {
        throw new InvalidInputError(`confirm the exact command line before it runs: ${line} (send it back as confirmCommandLine)`);
      }
      this.requireMcp().add(name, { command: req.command, ...(req.args ? { args: req.args } : {}), ...(req.env ? { env: req.env } : {}) });
      this.deps.log?.(`sources: the operator added stdio MCP server "${name}": ${line}`);
    } else if (req.kind === 'mcp-http') {
      this.requireMcp().add(name, { url: req.url, ...(req.headers ? { headers: req.headers } : {}) });
      this.deps.log?.(`sources: the operator added HTTP MCP server "${name}": ${req.url}`);
    } else if (req.kind === 'openapi') {
      if ((req.document === undefined) === (req.documentText === undefined)) {
        throw new InvalidInputError('an OpenAPI source needs exactly one of "document" (a URL or a path) and "documentText" (an uploaded file)');
      }
      if (req.document !== undefined && !isHttpUrl(req.document) && context.exposed) {
        // a path reads a file of the Gateway's machine: from a page that may be far away, only through the config file
        throw new InvalidInputError('this server is exposed beyond loopback, so an OpenAPI document is added by URL or upload only; put a file path in sources.openapi in the config file');
      }
      this.deps.openapi.add(name, openApiConfig(req));
      this.deps.log?.(`sources: the operator added OpenAPI source "${name}" (${req.document ?? 'uploaded document'})`);
    } else {
      throw new InvalidInputError(`unknown source kind ${JSON.stringify((req as { kind: unknown }).kind)}; use "mcp-stdio", "mcp-http" or "openapi"`);
    }
    if (this.deps.redaction) {
      if (req.kind === 'openapi') registerOpenApiSecrets(this.deps.redaction, req);
      else registerMcpServerSecrets(this.deps.redaction, req);
    }
    this.kinds.set(name, req.kind);
    this.added.set(name, req);
    return this.list().find((v) => v.name === name)!;
  }

  /** Resolves once the named source's first connection or load settled. */
  async settled(name: string): Promise<SourceView | undefined> {
    const kind = this.kinds.get(name);
    if (kind === 'openapi') await this.deps.openapi.ready(name);
    else if (kind) await this.deps.mcp?.firstAttempt(name);
    return this.list().find((v) => v.name === name);
  }

  /** Stops and forgets a source (the config file is not changed). */
  async remove(name: string): Promise<boolean> {
    const kind = this.kinds.get(name);
    if (!kind) return false;
    const removed = kind === 'openapi' ? this.deps.openapi.remove(name) : ((await this.deps.mcp?.remove(name)) ?? false);
    this.kinds.delete(name);
    this.added.delete(name);
    if (removed) this.deps.log?.(`sources: the operator removed "${name}"`);
    return removed;
  }

  /** Writes an added source into the config file (validated first; the previous file kept as <file>.bak). */
  save(name: string): SaveSourceResult {
    const req = this.added.get(name);
    if (!req) {
      throw new InvalidInputError(this.kinds.has(name) ? `source "${name}" already comes from the config file` : `no source named "${name}"; add it first`);
    }
    const file = this.deps.config.configFile;
    if (!file) throw new InvalidInputError('this Gateway was not started from a config file, so there is none to save to; start it with --config <file>');
    const json = readConfigJson(file);
    const dir = dirname(file);
    let documentFile: string | undefined;
    const section = (key: string): Record<string, unknown> => {
      const value = json[key];
      if (value === undefined) json[key] = {};
      else if (!isRecord(value)) throw new ConfigError(key, `must be an object to save a source into it`);
      return json[key] as Record<string, unknown>;
    };
    const sub = (parent: Record<string, unknown>, key: string, where: string): Record<string, unknown> => {
      if (parent[key] === undefined) parent[key] = {};
      if (!isRecord(parent[key])) throw new ConfigError(where, 'must be an object to save a source into it');
      return parent[key] as Record<string, unknown>;
    };
    if (req.kind === 'mcp-stdio') {
      sub(section('mcp'), 'servers', 'mcp.servers')[name] = { command: req.command, ...(req.args ? { args: req.args } : {}), ...(req.env ? { env: req.env } : {}) };
    } else if (req.kind === 'mcp-http') {
      sub(section('mcp'), 'servers', 'mcp.servers')[name] = { url: req.url, ...(req.headers ? { headers: req.headers } : {}) };
    } else {
      const { documentText, ...rest } = openApiConfig(req);
      let document = rest.document;
      if (documentText !== undefined) {
        documentFile = join(dir, 'sources', `${name}.openapi.${documentText.trimStart().startsWith('{') ? 'json' : 'yaml'}`);
        mkdirSync(dirname(documentFile), { recursive: true });
        writeFileSync(documentFile, documentText);
        document = relative(dir, documentFile);
      }
      sub(section('sources'), 'openapi', 'sources.openapi')[name] = { ...rest, document };
    }
    // never writes a file the next start would refuse
    const backup = writeConfigJson(file, json);
    this.added.delete(name);
    this.deps.log?.(`sources: saved "${name}" to ${file} (previous file kept as ${backup})`);
    return { file, backup, ...(documentFile ? { documentFile } : {}) };
  }

  private requireMcp(): McpManager {
    if (!this.deps.mcp) throw new InvalidInputError('this Gateway was built without an MCP manager, so MCP servers cannot be added at runtime');
    return this.deps.mcp;
  }
}

function openApiConfig(req: Extract<AddSourceRequest, { kind: 'openapi' }>): OpenApiSourceConfig {
  return {
    ...(req.document !== undefined ? { document: req.document } : {}),
    ...(req.documentText !== undefined ? { documentText: req.documentText } : {}),
    ...(req.baseUrl ? { baseUrl: req.baseUrl } : {}),
    ...(req.auth ? { auth: req.auth } : {}),
    ...(req.allowedHosts ? { allowedHosts: req.allowedHosts } : {}),
  };
}
