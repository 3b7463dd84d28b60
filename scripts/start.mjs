// `npm start`: builds the UI when .next is missing or older than its sources, then runs the one server process.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { constants } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
/** What `next build` compiles: a change to any of these makes the build stale. server/ is not bundled by Next. */
const BUILD_INPUTS = ['app', 'components', 'public', 'next.config.mjs', 'postcss.config.mjs', 'package.json', 'package-lock.json'];

/** @param {string} path @returns {number} */
function newestMtimeMs(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtimeMs(join(path, entry)));
  return newest;
}

function buildIsStale() {
  const buildId = join(root, '.next', 'BUILD_ID');
  if (!existsSync(buildId)) return 'no build yet';
  const builtAt = statSync(buildId).mtimeMs;
  const changed = BUILD_INPUTS.find((input) => newestMtimeMs(join(root, input)) > builtAt);
  return changed ? `${changed} changed since the last build` : undefined;
}

/** How often a long build says it is still going: next build can be silent for a minute while it compiles. */
const BUILD_PROGRESS_INTERVAL_MS = 15_000;

/**
 * Runs `next build` with its own output, plus an elapsed-time line while it is quiet. Resolves with its exit
 * status and, when this process was told to stop during the build, the signal that said so.
 * @returns {Promise<{ status: number, stoppedBy: NodeJS.Signals | undefined }>}
 */
function nextBuild() {
  const startedAt = Date.now();
  const seconds = () => Math.round((Date.now() - startedAt) / 1000);
  const build = spawn(process.execPath, [join(root, 'node_modules', 'next', 'dist', 'bin', 'next'), 'build'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  const progress = setInterval(() => console.log(`next build: still building (${seconds()} s so far)...`), BUILD_PROGRESS_INTERVAL_MS);
  // a stop during the build (Ctrl+C, Playwright ending its web server) stops the build too, not only this wrapper
  /** @type {NodeJS.Signals | undefined} */
  let stoppedBy;
  /** @param {NodeJS.Signals} signal */
  const stop = (signal) => {
    stoppedBy = signal;
    build.kill(signal);
  };
  process.on('SIGINT', stop).on('SIGTERM', stop);
  return new Promise((resolve) => {
    build.on('error', (err) => {
      clearInterval(progress);
      process.off('SIGINT', stop).off('SIGTERM', stop);
      console.error(`next build could not start: ${err.message}`);
      resolve({ status: 1, stoppedBy });
    });
    build.on('exit', (code, signal) => {
      clearInterval(progress);
      process.off('SIGINT', stop).off('SIGTERM', stop);
      if (code === 0) console.log(`next build: done in ${seconds()} s`);
      resolve({ status: code ?? (signal ? 1 : 0), stoppedBy });
    });
  });
}

const stale = process.env.CODEMODE_SKIP_BUILD ? undefined : buildIsStale();
if (stale) {
  console.log(`next build (${stale}): building the UI once; later starts reuse it...`);
  const { status, stoppedBy } = await nextBuild();
  // stopped on purpose (Ctrl+C, SIGTERM): not a failed build; exit as the signal would have (128 + its number)
  if (stoppedBy) process.exit(128 + constants.signals[stoppedBy]);
  if (status !== 0) {
    console.error('next build failed; fix the error above and run npm start again');
    process.exit(status);
  }
}

// One node process (tsx as a loader, no extra wrapper) so signals reach the server directly.
const server = spawn(process.execPath, ['--import', 'tsx', join(root, 'server', 'main.ts'), ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, NODE_ENV: 'production' },
});
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM'])) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
