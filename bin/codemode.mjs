#!/usr/bin/env node
// `codemode` command: loads the TypeScript CLI unbundled through tsx's loader and runs it.
import { register } from 'tsx/esm/api';

register();
// Called explicitly: an entry guard on the script path misses `node_modules/.bin` and `npm link` symlinks.
const { runCli } = await import('../server/cli/main.ts');
await runCli(process.argv.slice(2));
