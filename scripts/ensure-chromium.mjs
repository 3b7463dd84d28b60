// Before the E2E suite: makes sure Debian's Chromium is there, installing it with apt-get when it is missing.
//
// The project never downloads a browser (Playwright's own builds are not used): the suite drives the
// system Chromium at CHROMIUM_PATH (default /usr/bin/chromium, as playwright.config.ts). When it is
// missing this runs `apt-get update` and `apt-get install -y chromium`, through sudo when not root, the
// same steps as .ci/run. When that cannot work (no apt-get, no sudo, no network) it exits 1 with what to
// do instead. CODEMODE_APT_GET names another apt-get program (tests use a fake one).
import { accessSync, constants, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { aptInstallCommands, runCommand } from './apt.mjs';

/** Where Debian's chromium package puts the browser, and where playwright.config.ts looks by default. */
export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';

/** @param {string} path */
export function isExecutable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The commands that install Debian's chromium package, each an argv array; sudo first when not root.
 * @param {{ isRoot: boolean, aptGet?: string | undefined }} options
 */
export function installCommands(options) {
  return aptInstallCommands('chromium', options);
}

/**
 * Ensures an executable browser at `path`. Returns { ok: true, installed } or { ok: false, message }, where
 * the message says what went wrong and how to get a browser by hand.
 * @param {{ path: string, isRoot: boolean, aptGet?: string | undefined, run?: (argv: string[]) => string | null, log?: (line: string) => void }} options
 */
export function ensureChromium({ path, isRoot, aptGet, run = runCommand, log = (line) => console.log(line) }) {
  if (isExecutable(path)) return { ok: true, installed: false };
  const by = (/** @type {string} */ reason) =>
    `Chromium is missing at ${path} and could not be installed: ${reason}.\n` +
    `Install Debian's Chromium yourself (sudo apt-get install -y chromium), or set CHROMIUM_PATH to a Chromium binary; ` +
    `the E2E suite never downloads a browser.`;
  log(`Chromium is missing at ${path}: installing Debian's chromium package (${isRoot ? 'as root' : 'through sudo'})...`);
  for (const argv of installCommands({ isRoot, aptGet })) {
    const failure = run(argv);
    if (failure) return { ok: false, message: by(failure) };
  }
  if (!isExecutable(path)) {
    return { ok: false, message: by(`the chromium package installed, but ${path} is still not an executable (Debian puts it at ${DEFAULT_CHROMIUM_PATH}; check CHROMIUM_PATH)`) };
  }
  log(`Chromium installed at ${path}.`);
  return { ok: true, installed: true };
}

function main() {
  const result = ensureChromium({
    path: process.env.CHROMIUM_PATH || DEFAULT_CHROMIUM_PATH,
    isRoot: process.getuid?.() === 0,
    aptGet: process.env.CODEMODE_APT_GET || 'apt-get',
  });
  if (!result.ok) {
    console.error(result.message);
    process.exitCode = 1;
  }
}

// run when executed (npm run test:e2e), not when a test imports the functions
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) main();
