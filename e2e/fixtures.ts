// The suite's `test`: Playwright's, with baseURL pointing at the Gateway of the worker that runs the test (e2eGatewayPort).
import { test as base } from '@playwright/test';
import { e2eGatewayPort } from './ports.ts';

export { expect } from '@playwright/test';

export const test = base.extend({
  // page, context and request all take their base URL from this option
  baseURL: async ({}, use, testInfo) => {
    await use(`http://127.0.0.1:${e2eGatewayPort(testInfo.parallelIndex)}`);
  },
});
