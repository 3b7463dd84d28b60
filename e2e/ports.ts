// Ports of the suite's own servers (3000 is left to a developer's `npm start`).
export const E2E_PORT = 3123;
export const E2E_DISABLED_PORT = 3124;
