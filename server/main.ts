// Process entry: one Gateway and one HTTP server (request checks, tRPC on /api/trpc with SSE events, Next for the page).
/*
 * One process, one port. The Gateway runs here unbundled (worker threads and .wasm files load as
 * they are); Next only renders app/ and components/. Run with tsx: `tsx server/main.ts [--dev]
 * [--config FILE]`. PORT and HOST override the address; it binds to loopback unless told otherwise,
 * and a non-loopback HOST needs an access token (CODEMODE_ACCESS_TOKEN or server.accessToken).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGateway } from './gateway.ts';
import { TestPlanRunner } from './testplan/service.ts';
import { createNextStaticHandler } from './http/next-static.ts';
import { startPlaygroundServer } from './http/server.ts';
import { describeExposure, ExposureError, refuseUnprotectedExposure, resolveAccessToken } from './http/request-checks.ts';

export { API_BASE_PATH } from './http/server.ts';

/** Loopback by default: the playground runs hostile cells on request, so exposing it is a choice. */
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 3000;
/** After this long a shutdown stops waiting for runs and connections and exits anyway. */
export const SHUTDOWN_GRACE_MS = 5_000;

function parsePort(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_PORT;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`PORT: "${raw}" is not a TCP port; set PORT to an integer from 0 to 65535 (or unset it for ${DEFAULT_PORT})`);
  }
  return port;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const dev = args.includes('--dev');
  const gatewayArgv = args.filter((arg) => arg !== '--dev');
  const host = process.env.HOST || DEFAULT_HOST;
  const port = parsePort(process.env.PORT);
  // Next and React pick their production or development build from NODE_ENV when they load.
  // (Next's types declare NODE_ENV read-only, hence the assign.)
  // No internet on these machines: do not try to send Next's telemetry.
  process.env.NEXT_TELEMETRY_DISABLED ??= '1';
  if (!process.env.NODE_ENV) Object.assign(process.env, { NODE_ENV: dev ? 'development' : 'production' });

  const gateway = await createGateway({ argv: gatewayArgv, env: process.env, log: (line) => console.log(`[gateway] ${line}`) });
  const serverOptions = gateway.config.server;
  let accessToken: string | undefined;
  try {
    accessToken = resolveAccessToken(process.env, serverOptions);
    // refused before Next spends a minute preparing
    refuseUnprotectedExposure(host, accessToken);
  } catch (err) {
    await gateway.close();
    throw err;
  }

  const { default: next } = await import('next');
  const dir = fileURLToPath(new URL('..', import.meta.url));
  const app = next({ dev, dir, hostname: host, port });
  await app.prepare();
  const handleNext = app.getRequestHandler();
  // the build's static files, served with V8's compile hint and compressed once (next-static.ts); dev serves its own
  const serveStatic = dev ? undefined : createNextStaticHandler(join(dir, '.next', 'static'));

  const { server, exposure, mcp } = await startPlaygroundServer({
    gateway,
    testPlan: TestPlanRunner.over(gateway),
    host,
    port,
    server: serverOptions,
    mcpServer: gateway.config.mcpServer,
    accessToken,
    handlePage: async (req, res) => {
      if (serveStatic && (await serveStatic(req, res))) return;
      await handleNext(req, res);
    },
    logError: (line, err) => console.error(line, err),
  });
  console.log(`Code Mode Playground ${dev ? '(dev) ' : ''}on http://${host.includes(':') ? `[${host}]` : host}:${exposure.port}`);
  console.log(describeExposure(exposure));
  if (mcp) console.log(`MCP (Streamable HTTP) at ${gateway.config.mcpServer.path}; \`codemode mcp\` serves stdio`);

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    console.log(`${signal}: shutting down`);
    const force = setTimeout(() => {
      console.error(`shutdown took longer than ${SHUTDOWN_GRACE_MS} ms; exiting`);
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    server.close();
    // Event streams stay open forever; close them so server.close() can finish.
    server.closeAllConnections();
    Promise.allSettled([mcp?.close(), gateway.close(), app.close()]).then((results) => {
      for (const r of results) if (r.status === 'rejected') console.error('shutdown:', r.reason);
      process.exit(0);
    });
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((err: unknown) => {
  // A config or exposure error names what to change; its stack would only bury that. Anything else keeps its stack.
  if (err instanceof ExposureError || (err instanceof Error && (err.name === 'ConfigError' || err.message.includes('PORT') || err.message.includes('in use')))) {
    console.error(`cannot start: ${err.message}`);
  } else console.error('cannot start:', err);
  process.exit(1);
});
