import { DEFAULT_OPENAPI_MAX_DOCUMENT_BYTES } from './sources-schema.ts';
import { describe, expect, it } from 'vitest';
import { parseGatewayConfig } from './load.ts';
import { configError } from './testing.ts';

const base = '/srv/codemode';

describe('config: sources', () => {
  it('resolves OpenAPI document paths against the config folder, keeps URLs, defaults stdio-when-exposed to false', () => {
    const config = parseGatewayConfig(
      {
        sources: {
          openapi: {
            inventory: { document: 'demo/openapi/inventory.yaml', baseUrl: 'http://127.0.0.1:4011', auth: { env: 'INVENTORY_TOKEN' }, allowedHosts: ['127.0.0.1:4011'] },
            remote: { document: 'https://api.example.com/openapi.json', timeoutMs: 5000 },
          },
        },
      },
      base,
    );
    expect(config.sources).toEqual({
      openapi: {
        inventory: { document: '/srv/codemode/demo/openapi/inventory.yaml', baseUrl: 'http://127.0.0.1:4011', auth: { env: 'INVENTORY_TOKEN' }, allowedHosts: ['127.0.0.1:4011'] },
        remote: { document: 'https://api.example.com/openapi.json', timeoutMs: 5000 },
      },
      allowStdioWhenExposed: false,
      maxDocumentBytes: DEFAULT_OPENAPI_MAX_DOCUMENT_BYTES,
    });
    expect(parseGatewayConfig({}, base).sources).toEqual({ openapi: {}, allowStdioWhenExposed: false, maxDocumentBytes: 32 * 1024 * 1024 });
    expect(parseGatewayConfig({ sources: { allowStdioWhenExposed: true } }, base).sources?.allowStdioWhenExposed).toBe(true);
    expect(parseGatewayConfig({ sources: { maxDocumentBytes: 65536 } }, base).sources?.maxDocumentBytes).toBe(65536);
  });

  it('takes headers on an HTTP MCP server', () => {
    const config = parseGatewayConfig({ mcp: { servers: { r: { url: 'http://127.0.0.1:4000/mcp', headers: { Authorization: 'Bearer x' } } } } }, base);
    expect(config.mcp.servers['r']).toEqual({ url: 'http://127.0.0.1:4000/mcp', headers: { Authorization: 'Bearer x' } });
    expect(configError(() => parseGatewayConfig({ mcp: { servers: { r: { url: 'http://x/mcp', headers: { A: 1 } } } } }, base)).path).toBe('mcp.servers.r.headers.A');
  });

  it.each([
    [{ sources: { openapi: { inv: {} } } }, 'sources.openapi.inv.document'],
    [{ sources: { openapi: { inv: { document: 'x.yaml', baseUrl: 'ftp://x' } } } }, 'sources.openapi.inv.baseUrl'],
    [{ sources: { openapi: { inv: { document: 'x.yaml', auth: { value: 'a', env: 'B' } } } } }, 'sources.openapi.inv.auth'],
    [{ sources: { openapi: { inv: { document: 'x.yaml', allowedHosts: ['https://api.example.com/'] } } } }, 'sources.openapi.inv.allowedHosts[0]'],
    [{ sources: { openapi: { inv: { document: 'x.yaml', timeoutMs: 5 } } } }, 'sources.openapi.inv.timeoutMs'],
    [{ sources: { openapi: { inv: { document: 'x.yaml', baseURL: 'http://x' } } } }, 'sources.openapi.inv.baseURL'],
    [{ sources: { allowStdioWhenExposed: 'yes' } }, 'sources.allowStdioWhenExposed'],
    [{ sources: { maxDocumentBytes: 1024 } }, 'sources.maxDocumentBytes'],
    [{ sources: { maxDocumentBytes: '13MB' } }, 'sources.maxDocumentBytes'],
    [{ sources: { mcp: {} } }, 'sources.mcp'],
  ])('names the bad field: %j -> %s', (json, path) => {
    const error = configError(() => parseGatewayConfig(json, base));
    expect(error.path).toBe(path);
  });

  it('says what to write', () => {
    expect(configError(() => parseGatewayConfig({ sources: { openapi: { inv: { document: 'x.yaml', allowedHosts: ['https://a/'] } } } }, base)).reason).toContain(
      'is not a host; write "api.example.com" or "127.0.0.1:4011" (no scheme or path)',
    );
    expect(configError(() => parseGatewayConfig({ sources: { openapi: { inv: { document: 'x.yaml', auth: { header: 'Authorization' } } } } }, base)).reason).toContain(
      'give exactly one of "value" and "env"',
    );
  });
});
