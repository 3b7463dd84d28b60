#!/usr/bin/env node
// `codemode` command: loads the TypeScript CLI unbundled through tsx's loader.
import { register } from 'tsx/esm/api';

register();
await import('../server/cli/main.ts');
