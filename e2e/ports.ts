// Ports of the suite's own servers (3000 is left to a developer's `npm start`); E2E_PORT_BASE moves them all, so two checkouts can run the suite side by side.
const base = Number(process.env.E2E_PORT_BASE ?? 3123);
if (!Number.isInteger(base) || base < 1024 || base > 65534) throw new Error(`E2E_PORT_BASE must be a port from 1024 to 65534, got ${process.env.E2E_PORT_BASE}`);
/** The Gateway of Playwright's first worker (parallelIndex 0); see e2eGatewayPort for the others. */
export const E2E_PORT = base;
export const E2E_DISABLED_PORT = base + 1;
/** e2e/sources.spec.ts and e2e/durable.spec.ts start (and restart) their own playground here, one after the other (playwright.sources.config.ts). */
export const E2E_SOURCES_PORT = base + 2;
/** The demo inventory API (demo/openapi/server.mjs) that spec calls through the OpenAPI source. */
export const E2E_INVENTORY_PORT = base + 3;

/**
 * The Gateway that Playwright worker `parallelIndex` talks to: each worker has its own (playwright.config.ts
 * starts one per worker), so tests that read a Gateway's global state (the board's "all turns" view, the runs
 * list) see only their own worker's runs. Worker 0 keeps E2E_PORT; the others follow the ports above.
 */
export function e2eGatewayPort(parallelIndex: number): number {
  if (!Number.isInteger(parallelIndex) || parallelIndex < 0) throw new Error(`a worker's parallelIndex is an integer from 0, got ${parallelIndex}`);
  const port = parallelIndex === 0 ? E2E_PORT : E2E_INVENTORY_PORT + parallelIndex;
  if (port > 65535) throw new Error(`E2E_PORT_BASE ${base} leaves no port for worker ${parallelIndex}; pick a lower base`);
  return port;
}
