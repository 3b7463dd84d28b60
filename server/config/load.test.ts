// Tests for the gateway config file: the shipped and example configs, every invalid example, paths, and where the file is found.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { configError } from './testing.ts';
import {
  CONFIG_ENV_VAR,
  DEFAULT_AGENT_ID,
  DEFAULT_CONFIG_FILE,
  DEFAULT_MODEL,
  DEFAULT_SHELL_ALLOW,
  DEFAULT_WORKSPACE,
  loadConfigFile,
  parseGatewayConfig,
  resolveConfigPath,
} from './load.ts';
import { CODE_MODE_LIMIT_BOUNDS, DEFAULT_CODE_MODE_OPTIONS, DEFAULT_MCP_SERVER_OPTIONS, DEFAULT_SERVER_OPTIONS } from './schema.ts';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const configsDir = join(repoRoot, 'demo/configs');


describe('the shipped codemode.config.json', () => {
  const config = loadConfigFile(join(repoRoot, 'codemode.config.json'));

  it('enables code mode with the quickjs executor (a web endpoint takes hostile input)', () => {
    expect(config.tools.codeMode.enabled).toBe(true);
    expect(config.tools.codeMode.executor).toBe('quickjs');
  });

  it('lets only the operator (the playground page) override the executor per cell', () => {
    expect(config.tools.codeMode.allowExecutorOverride).toBe('operator');
  });

  it('lists main first (the default agent), then research and direct', () => {
    expect(config.agents.list.map((agent) => agent.id)).toEqual(['main', 'research', 'direct']);
    expect(config.agents.list[0]?.model).toBe('demo/coder');
    expect(config.agents.defaults.models['demo/coder']?.prefersCodeMode).toBe(true);
  });

  it('has a default model entry that switches code mode off', () => {
    const off = Object.entries(config.agents.defaults.models).filter(([, entry]) => entry.codeMode === false);
    expect(off.length).toBeGreaterThan(0);
  });

  it('gives research a narrower allowlist that denies the shell exec tool', () => {
    const research = config.agents.list.find((agent) => agent.id === 'research');
    expect(research?.tools?.allow).toEqual(expect.arrayContaining(['web_search', 'web_fetch', 'read', 'grep', 'llm-task', 'sleep']));
    expect(research?.tools?.allow?.some((pattern) => pattern.includes('mcp'))).toBe(true);
    expect(research?.tools?.deny).toContain('exec');
    expect(config.tools.deny ?? []).not.toContain('exec');
  });

  it('turns code mode off for the direct agent through its own tools.codeMode.enabled', () => {
    const direct = config.agents.list.find((agent) => agent.id === 'direct');
    expect(direct?.tools?.codeMode?.enabled).toBe(false);
  });

  it('loads the four bundled plugins, the edge-names plugin and the demo MCP server, with absolute paths', () => {
    expect(config.plugins.bundled).toEqual(['llm-task', 'weather', 'notes', 'guard']);
    expect(config.plugins.external).toEqual([{ id: 'edge-names', path: join(repoRoot, 'demo/plugins/edge-names') }]);
    expect(config.mcp.servers['demo']).toEqual({ command: 'node', args: ['demo/mcp/server.mjs'], cwd: repoRoot });
    expect(config.workspace).toBe(join(repoRoot, 'demo/workspace'));
    expect(config.baseDir).toBe(repoRoot);
    expect(config.configFile).toBe(join(repoRoot, 'codemode.config.json'));
  });
});

describe('example configs', () => {
  it('on disabled.json: code mode is off and paths resolve against the file\'s own folder', () => {
    const config = loadConfigFile(join(configsDir, 'disabled.json'));
    expect(config.tools.codeMode.enabled).toBe(false);
    expect(config.workspace).toBe(join(repoRoot, 'demo/workspace'));
    expect(config.plugins.external[0]?.path).toBe(join(repoRoot, 'demo/plugins/edge-names'));
    const demo = config.mcp.servers['demo'];
    expect(demo && 'command' in demo ? resolve(demo.cwd ?? '', demo.args?.[0] ?? '') : undefined).toBe(join(repoRoot, 'demo/mcp/server.mjs'));
    const enabling = [
      ...Object.values(config.agents.defaults.models).map((entry) => entry.codeMode),
      ...config.agents.list.flatMap((agent) => [agent.tools?.codeMode?.enabled, ...Object.values(agent.models ?? {}).map((entry) => entry.codeMode)]),
    ];
    expect(enabling.filter((value) => value === true || value === 'auto')).toEqual([]);
  });

  it('on short-timeout.json: code mode is on with a short deadline', () => {
    const config = loadConfigFile(join(configsDir, 'short-timeout.json'));
    expect(config.tools.codeMode.enabled).toBe(true);
    expect(config.tools.codeMode.timeoutMs).toBeLessThan(DEFAULT_CODE_MODE_OPTIONS.timeoutMs);
  });
});

describe('invalid example configs', () => {
  // Each invalid file and the field its error must name (a JSON syntax error names line and column instead).
  const expected: Record<string, { path: string; says: string }> = {
    'invalid-json.json': { path: '', says: 'line 3, column 36' },
    'invalid-timeout.json': { path: 'tools.codeMode.timeoutMs', says: 'expected an integer, got "10s"' },
    'invalid-executor.json': { path: 'tools.codeMode.executor', says: 'unknown executor "deno"' },
    'invalid-enabled.json': { path: 'tools.codeMode.enabled', says: 'got "yes"' },
    'invalid-unknown-key.json': { path: 'tools.codeMode.timeOutMs', says: 'did you mean "timeoutMs"' },
    'invalid-top-level-key.json': { path: 'tool', says: 'did you mean "tools"' },
    'invalid-duplicate-agent.json': { path: 'agents.list[2].id', says: 'duplicate agent id "main"' },
    'invalid-duplicate-key.json': { path: 'tools.codeMode', says: 'duplicate key' },
    'invalid-duplicate-plugin.json': { path: 'plugins.external[0].id', says: 'duplicate plugin id "weather"' },
    'invalid-model-key.json': { path: 'agents.defaults.models["gpt-5"]', says: 'not "provider/model"' },
    'invalid-model-codemode.json': { path: 'agents.defaults.models["demo/coder"].codeMode', says: 'expected true or false, got "auto"' },
    'invalid-agent-limit.json': { path: 'agents.list[0].tools.codeMode.maxPendingToolCalls', says: 'expected an integer, got 2.5' },
    'invalid-mcp-server.json': { path: 'mcp.servers.demo', says: 'needs "command"' },
    'invalid-shell-allow.json': { path: 'shellAllow[1]', says: 'not a bare command name' },
  };

  it('every invalid-*.json in demo/configs has an expectation here', () => {
    const files = readdirSync(configsDir).filter((name) => name.startsWith('invalid-'));
    expect(files.sort()).toEqual(Object.keys(expected).sort());
  });

  it.each(Object.entries(expected))('on %s: fails naming the field and the file', (name, { path, says }) => {
    const file = join(configsDir, name);
    const error = configError(() => loadConfigFile(file));
    expect(error.path).toBe(path);
    if (path) expect(error.message.startsWith(`${path}: `)).toBe(true);
    expect(error.message).toContain(says);
    expect(error.message).toContain(file);
  });
});

describe('parseGatewayConfig', () => {
  const base = '/srv/playground';

  it('on an empty object: fills every default, disabled, with one default agent', () => {
    const config = parseGatewayConfig({}, base);
    expect(config.tools.codeMode).toEqual({ ...DEFAULT_CODE_MODE_OPTIONS, enabled: false });
    expect(config.agents.list).toEqual([{ id: DEFAULT_AGENT_ID }]);
    expect(config.agents.defaults).toEqual({ model: DEFAULT_MODEL, models: {} });
    expect(config.workspace).toBe(resolve(base, DEFAULT_WORKSPACE));
    expect(config.shellAllow).toEqual([...DEFAULT_SHELL_ALLOW]);
    expect(config.plugins).toEqual({ bundled: [], external: [] });
    expect(config.mcp.servers).toEqual({});
    expect(config.server).toEqual({ ...DEFAULT_SERVER_OPTIONS });
    expect(config.warnings).toBeUndefined();
  });

  it('on a server section: keeps the token, hosts, origins, clients and shares it sets over the defaults', () => {
    const keySha256 = 'a'.repeat(64);
    const config = parseGatewayConfig(
      {
        server: {
          accessToken: 'x'.repeat(32),
          allowedHosts: ['play.lan:3000'],
          allowedOrigins: ['https://app.example'],
          clients: { 'ci-agent': { keySha256 } },
          shares: { client: { eventStreams: 2 }, anonymous: { suspendedRuns: 4, liveTurns: 10 } },
        },
      },
      base,
    );
    expect(config.server).toEqual({
      ...DEFAULT_SERVER_OPTIONS,
      accessToken: 'x'.repeat(32),
      allowedHosts: ['play.lan:3000'],
      allowedOrigins: ['https://app.example'],
      clients: { 'ci-agent': { keySha256 } },
      shares: {
        operator: DEFAULT_SERVER_OPTIONS.shares.operator,
        client: { ...DEFAULT_SERVER_OPTIONS.shares.client, eventStreams: 2 },
        anonymous: { ...DEFAULT_SERVER_OPTIONS.shares.anonymous, suspendedRuns: 4, liveTurns: 10 },
      },
    });
  });

  it('on shares: each below the total it divides (64 suspended runs, mcpServer.maxSessions); a smaller maxSessions lowers the default /mcp shares', () => {
    expect(configError(() => parseGatewayConfig({ server: { shares: { client: { suspendedRuns: 64 } } } }, base)).message).toMatch(/server\.shares\.client\.suspendedRuns: .*from 1 to 63/);
    expect(configError(() => parseGatewayConfig({ server: { shares: { operator: { mcpSessions: 8 } } }, mcpServer: { maxSessions: 8 } }, base)).message).toContain(
      'server.shares.operator.mcpSessions: 8 is not below mcpServer.maxSessions (8): one owner could hold every session',
    );
    const few = parseGatewayConfig({ mcpServer: { maxSessions: 4 } }, base);
    expect(few.server.shares.operator.mcpSessions).toBe(3);
    expect(few.server.shares.anonymous.mcpSessions).toBe(3);
  });

  it('on the old flat limits (maxTurnsPerClient and the like): says where each lives now', () => {
    const message = configError(() => parseGatewayConfig({ server: { maxTurnsPerClient: 3, maxEventSubscribersOperator: 9 } }, base)).message;
    expect(message).toContain('server.maxTurnsPerClient: moved: shares are per owner now; write it as server.shares.client.liveTurns');
    expect(message).toContain('server.maxEventSubscribersOperator: moved: shares are per owner now; write it as server.shares.operator.eventStreams');
  });

  it('on server.clients: a bad name or a key that is not a SHA-256 in hex is named', () => {
    expect(configError(() => parseGatewayConfig({ server: { clients: { 'bad name': { keySha256: 'a'.repeat(64) } } } }, base)).message).toContain('is not a client name');
    expect(configError(() => parseGatewayConfig({ server: { clients: { ci: { keySha256: 'ck_plaintext' } } } }, base)).message).toMatch(
      /server\.clients\.ci\.keySha256: must be 64 lowercase hex digits.*codemode keys add NAME/,
    );
  });

  it('on a bad server field: names it and says what to write (short token, origin with a path, host with a scheme, limit out of range)', () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ accessToken: 'short' }, /server\.accessToken: .*at least 24 characters.*openssl rand -hex 32/],
      [{ allowedOrigins: ['https://app.example/path'] }, /server\.allowedOrigins\[0\]: .*not an origin/],
      [{ allowedHosts: ['http://play.lan'] }, /server\.allowedHosts\[0\]: .*not a host/],
      [{ maxRequestBodyBytes: 10 }, /server\.maxRequestBodyBytes: .*from 16384 to/],
      [{ maxQueuedEventsPerSubscriber: 'many' }, /server\.maxQueuedEventsPerSubscriber/],
      [{ shares: { operator: { eventStreams: 5000 } } }, /server\.shares\.operator\.eventStreams: .*from 1 to 1024/],
      [{ accesToken: 'x'.repeat(32) }, /accesToken/],
    ];
    for (const [server, message] of cases) expect(configError(() => parseGatewayConfig({ server }, base)).message).toMatch(message);
  });

  it('on tools.codeMode.allowExecutorOverride: takes never, operator or always; anything else names the choices', () => {
    expect(parseGatewayConfig({ tools: { codeMode: { allowExecutorOverride: 'always' } } }, base).tools.codeMode.allowExecutorOverride).toBe('always');
    expect(configError(() => parseGatewayConfig({ tools: { codeMode: { allowExecutorOverride: 'yes' } } }, base)).message).toMatch(
      /tools\.codeMode\.allowExecutorOverride: .*"never", "operator" or "always"/,
    );
  });

  it('on relative and absolute paths: resolves relative ones against baseDir and keeps absolute ones', () => {
    const config = parseGatewayConfig(
      {
        workspace: '../data/ws',
        plugins: { external: [{ id: 'a', path: 'plugins/a' }, { id: 'b', path: '/opt/b' }] },
        mcp: { servers: { s: { command: 'node', args: ['s.mjs'], cwd: 'mcp' }, t: { command: 'node' } } },
      },
      base,
    );
    expect(config.workspace).toBe('/srv/data/ws');
    expect(config.plugins.external.map((plugin) => plugin.path)).toEqual(['/srv/playground/plugins/a', '/opt/b']);
    expect(config.mcp.servers['s']).toMatchObject({ cwd: '/srv/playground/mcp', args: ['s.mjs'] });
    expect(config.mcp.servers['t']).toMatchObject({ cwd: base });
  });

  it('on an HTTP MCP server: keeps url and networkContent', () => {
    const config = parseGatewayConfig({ mcp: { servers: { remote: { url: 'http://127.0.0.1:4000/mcp', networkContent: true } } } }, base);
    expect(config.mcp.servers['remote']).toEqual({ url: 'http://127.0.0.1:4000/mcp', networkContent: true });
  });

  it('on a bad MCP url or a misspelled MCP field: names the nested field', () => {
    expect(configError(() => parseGatewayConfig({ mcp: { servers: { r: { url: 'ftp://x' } } } }, base)).path).toBe('mcp.servers.r.url');
    const typo = configError(() => parseGatewayConfig({ mcp: { servers: { s: { command: 'node', arg: ['x'] } } } }, base));
    expect(typo.path).toBe('mcp.servers.s.arg');
    expect(typo.reason).toContain('did you mean "args"');
  });

  it('on unknown keys at any depth: is an error naming the full path', () => {
    const cases: Array<[unknown, string]> = [
      [{ tools: { allowed: ['x'] } }, 'tools.allowed'],
      [{ agents: { default: {} } }, 'agents.default'],
      [{ agents: { defaults: { models: { 'a/b': { codemode: true } } } } }, 'agents.defaults.models["a/b"].codemode'],
      [{ agents: { list: [{ id: 'a', tool: {} }] } }, 'agents.list[0].tool'],
      [{ agents: { list: [{ id: 'a', tools: { codeMode: { enable: true } } }] } }, 'agents.list[0].tools.codeMode.enable'],
      [{ plugins: { external: [{ id: 'a', path: 'p', main: 'x' }] } }, 'plugins.external[0].main'],
    ];
    for (const [json, path] of cases) {
      expect(configError(() => parseGatewayConfig(json, base)).path, path).toBe(path);
    }
  });

  it('on wrong types: names the field and says what was found', () => {
    const cases: Array<[unknown, string, string]> = [
      [[], '', 'expected an object'],
      [{ workspace: 3 }, 'workspace', 'expected a string, got 3'],
      [{ workspace: '  ' }, 'workspace', 'must not be empty'],
      [{ shellAllow: 'ls' }, 'shellAllow', 'expected a list, got "ls"'],
      // a command without an argument grammar could never run: refused at load, naming the ones that can
      [{ shellAllow: ['ls', 'rm'] }, 'shellAllow[1]', 'command "rm" has no argument grammar in this build, so its arguments could not be confined and it could never run; list only commands it knows: ls, cat'],
      [{ tools: { deny: [1] } }, 'tools.deny[0]', 'expected a string, got 1'],
      [{ agents: { list: [{ name: 'x' }] } }, 'agents.list[0].id', 'required'],
      [{ agents: { list: [{ id: 'has space' }] } }, 'agents.list[0].id', 'not a usable agent id'],
      [{ agents: { defaults: { model: 'gpt-5' } } }, 'agents.defaults.model', 'not "provider/model"'],
      [{ agents: { defaults: { models: { 'a/b': { fallbacks: ['c'] } } } } }, 'agents.defaults.models["a/b"].fallbacks[0]', 'not "provider/model"'],
      [{ agents: { defaults: { models: { 'a/b': { prefersCodeMode: 'yes' } } } } }, 'agents.defaults.models["a/b"].prefersCodeMode', 'expected true or false'],
      [{ mcp: { servers: { s: { command: 'node', env: { A: 1 } } } } }, 'mcp.servers.s.env.A', 'expected a string, got 1'],
      [{ mcp: { servers: { s: 'node server.mjs' } } }, 'mcp.servers.s', 'expected an object'],
    ];
    for (const [json, path, says] of cases) {
      const error = configError(() => parseGatewayConfig(json, base));
      expect(error.path, JSON.stringify(json)).toBe(path);
      expect(error.reason, JSON.stringify(json)).toContain(says);
    }
  });

  it('on an agent tools.codeMode: keeps only what it sets, clamped, and shorthands set enabled', () => {
    const config = parseGatewayConfig(
      {
        agents: {
          list: [
            { id: 'a', tools: { codeMode: { timeoutMs: 1 } } },
            { id: 'b', tools: { codeMode: 'auto' } },
            { id: 'c', tools: { codeMode: false } },
          ],
        },
      },
      base,
    );
    expect(config.agents.list.map((agent) => agent.tools?.codeMode)).toEqual([
      { timeoutMs: CODE_MODE_LIMIT_BOUNDS.timeoutMs.min },
      { enabled: 'auto' },
      { enabled: false },
    ]);
    expect(config.warnings?.some((warning) => warning.startsWith('agents.list[0].tools.codeMode.timeoutMs'))).toBe(true);
  });

  it('on clamped global limits: records a warning instead of failing', () => {
    const config = parseGatewayConfig({ tools: { codeMode: { enabled: true, maxSnapshotBytes: 1 } } }, base);
    expect(config.tools.codeMode.maxSnapshotBytes).toBe(CODE_MODE_LIMIT_BOUNDS.maxSnapshotBytes.min);
    expect(config.warnings).toEqual([expect.stringContaining('tools.codeMode.maxSnapshotBytes: 1 is out of range')]);
  });

  it('on several problems: throws once, listing every field, and returns nothing partial', () => {
    let returned: unknown;
    const error = configError(() => {
      returned = parseGatewayConfig({ workspace: 1, tools: { codeMode: { timeoutMs: 'x' } }, shellAllow: ['a b'] }, base);
    });
    expect(returned).toBeUndefined();
    for (const path of ['workspace', 'tools.codeMode.timeoutMs', 'shellAllow[0]']) expect(error.message).toContain(path);
  });

  it('on a "$schema" key: accepts and ignores it', () => {
    expect(parseGatewayConfig({ $schema: './schema.json' }, base).tools.codeMode.enabled).toBe(false);
  });
});

describe('loadConfigFile', () => {
  it('on a missing file: says which file and how to point at another', () => {
    const error = configError(() => loadConfigFile('/nonexistent/codemode.config.json'));
    expect(error.message).toContain('/nonexistent/codemode.config.json');
    expect(error.message).toContain('--config');
    expect(error.message).toContain(CONFIG_ENV_VAR);
  });

  it('on a file in another folder: resolves its paths against that folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'codemode-config-'));
    const file = join(dir, 'c.json');
    writeFileSync(file, JSON.stringify({ tools: { codeMode: true }, workspace: 'ws' }));
    try {
      const config = loadConfigFile(file);
      expect(config.baseDir).toBe(dir);
      expect(config.workspace).toBe(join(dir, 'ws'));
      expect(config.tools.codeMode.enabled).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('resolveConfigPath', () => {
  const cwd = '/home/dev/app';

  it('on --config: wins over the environment and the default', () => {
    expect(resolveConfigPath({ argv: ['node', 'main.ts', '--config', 'a.json'], env: { [CONFIG_ENV_VAR]: 'b.json' }, cwd })).toBe('/home/dev/app/a.json');
    expect(resolveConfigPath({ argv: ['--config=/etc/c.json'], env: { [CONFIG_ENV_VAR]: 'b.json' }, cwd })).toBe('/etc/c.json');
  });

  it('on CODEMODE_CONFIG without --config: uses the environment', () => {
    expect(resolveConfigPath({ argv: ['node', 'main.ts'], env: { [CONFIG_ENV_VAR]: 'cfg/b.json' }, cwd })).toBe('/home/dev/app/cfg/b.json');
  });

  it('on neither: uses ./codemode.config.json, also when the variable is blank', () => {
    expect(resolveConfigPath({ argv: [], env: {}, cwd })).toBe(join(cwd, DEFAULT_CONFIG_FILE));
    expect(resolveConfigPath({ argv: [], env: { [CONFIG_ENV_VAR]: '  ' }, cwd })).toBe(join(cwd, DEFAULT_CONFIG_FILE));
  });

  it('on --config without a value: is an error naming --config', () => {
    for (const argv of [['--config'], ['--config', '--dev'], ['--config=']]) {
      const error = configError(() => resolveConfigPath({ argv, env: {}, cwd }));
      expect(error.path).toBe('--config');
      expect(error.reason).toContain('expected a file path');
    }
  });
});

describe('mcpServer (the Gateway as an MCP server)', () => {
  const base = '/srv/playground';

  it('on no block: enabled at /mcp, no token of its own', () => {
    expect(parseGatewayConfig({}, base).mcpServer).toEqual({ ...DEFAULT_MCP_SERVER_OPTIONS });
    expect(DEFAULT_MCP_SERVER_OPTIONS).toEqual({ enabled: true, path: '/mcp', maxSessions: 32, sessionIdleSeconds: 1800 });
  });

  it('on every field: keeps them as written', () => {
    const token = 'x'.repeat(40);
    const written = { enabled: false, path: '/agents/mcp', token, maxSessions: 40, sessionIdleSeconds: 60 };
    expect(parseGatewayConfig({ mcpServer: written }, base).mcpServer).toEqual(written);
  });

  it('on a path that does not start with "/": names mcpServer.path and says what to write', () => {
    const error = configError(() => parseGatewayConfig({ mcpServer: { path: 'mcp' } }, base));
    expect(error.message).toContain('mcpServer.path');
    expect(error.message).toContain('starts with "/"');
  });

  it('on a path on the playground API (or its other paths): names mcpServer.path and the collision', () => {
    for (const path of ['/api', '/api/trpc', '/API/mcp', '/_next/mcp', '/__codemode/login', '/']) {
      const error = configError(() => parseGatewayConfig({ mcpServer: { path } }, base));
      expect(error.message, path).toContain('mcpServer.path');
      expect(error.message, path).toContain('collides');
    }
  });

  it('on a short token, a string for enabled or an unknown key: names the field', () => {
    expect(configError(() => parseGatewayConfig({ mcpServer: { token: 'short' } }, base)).message).toContain('mcpServer.token');
    expect(configError(() => parseGatewayConfig({ mcpServer: { enabled: 'yes' } }, base)).message).toContain('mcpServer.enabled');
    expect(configError(() => parseGatewayConfig({ mcpServer: { port: 3001 } }, base)).message).toContain('mcpServer');
  });

  it('on maxSessions or sessionIdleSeconds out of range or not whole: names the field and the range (rejected, not clamped)', () => {
    for (const [field, value, range] of [
      ['maxSessions', 0, 'from 1 to 1024'],
      ['maxSessions', 2.5, 'from 1 to 1024'],
      ['sessionIdleSeconds', 0, 'from 1 to 21600'],
      ['sessionIdleSeconds', '60', 'from 1 to 21600'],
    ] as const) {
      const message = configError(() => parseGatewayConfig({ mcpServer: { [field]: value } }, base)).message;
      expect(message, `${field}: ${value}`).toContain(`mcpServer.${field}`);
      expect(message, `${field}: ${value}`).toContain(range);
    }
  });
});
