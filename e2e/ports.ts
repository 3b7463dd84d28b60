// Ports of the suite's own servers (3000 is left to a developer's `npm start`); E2E_PORT_BASE moves both, so two checkouts can run the suite side by side.
const base = Number(process.env.E2E_PORT_BASE ?? 3123);
if (!Number.isInteger(base) || base < 1024 || base > 65534) throw new Error(`E2E_PORT_BASE must be a port from 1024 to 65534, got ${process.env.E2E_PORT_BASE}`);
export const E2E_PORT = base;
export const E2E_DISABLED_PORT = base + 1;
/** e2e/sources.spec.ts starts (and restarts) its own playground here: it writes its config file. */
export const E2E_SOURCES_PORT = base + 2;
/** The demo inventory API (demo/openapi/server.mjs) that spec calls through the OpenAPI source. */
export const E2E_INVENTORY_PORT = base + 3;
