// Installing a Debian package for the test suite (ensure-chromium.mjs, ensure-postgres.mjs): the apt-get commands,
// through sudo when not root, and running them with their output shown.
import { spawnSync } from 'node:child_process';

/**
 * The commands that install Debian's `pkg`, each an argv array; sudo first when not root.
 * @param {string} pkg
 * @param {{ isRoot: boolean, aptGet?: string | undefined }} options
 */
export function aptInstallCommands(pkg, { isRoot, aptGet = 'apt-get' }) {
  const sudo = isRoot ? [] : ['sudo'];
  return [
    [...sudo, aptGet, 'update'],
    [...sudo, aptGet, 'install', '-y', pkg],
  ];
}

/** Runs one command with inherited output, never prompting; returns null on success, else why it failed. @param {string[]} argv @returns {string | null} */
export function runCommand(argv) {
  const [program = '', ...args] = argv;
  const result = spawnSync(program, args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (result.error) return `${argv.join(' ')} could not start: ${result.error.message}`;
  if (result.status !== 0) return `${argv.join(' ')} exited with ${result.status ?? result.signal}`;
  return null;
}
