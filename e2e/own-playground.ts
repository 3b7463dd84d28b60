// A playground a spec starts, stops and restarts itself (scripts/start.mjs, as `npm start` runs it), on the sources
// port: the specs of playwright.sources.config.ts rewrite a config file or keep a database between two starts.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from '@playwright/test';
import { E2E_SOURCES_PORT } from './ports.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');

export class OwnPlayground {
  private child: ChildProcess | undefined;

  constructor(
    /** The config file to start with (read at each start: a spec may rewrite it between starts). */
    private readonly configFile: () => string,
    private readonly opts: {
      /** Environment on top of this process's. */
      env?: Record<string, string>;
      /** A limit for a hung start, not a timing (a first start may build the UI). */
      readyTimeoutMs: number;
    },
  ) {}

  /** Starts it and resolves once its API answers (polled: the server prints nothing to wait on more precisely). */
  async start(): Promise<void> {
    const child = spawn(process.execPath, [join(ROOT, 'scripts/start.mjs'), '--config', this.configFile()], {
      cwd: ROOT,
      env: { ...process.env, PORT: String(E2E_SOURCES_PORT), HOST: '127.0.0.1', ...this.opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const log: string[] = [];
    child.stdout?.on('data', (c: Buffer) => log.push(c.toString()));
    child.stderr?.on('data', (c: Buffer) => log.push(c.toString()));
    await expect
      .poll(
        async () => {
          if (child.exitCode !== null) throw new Error(`the playground exited (${child.exitCode}): ${log.join('')}`);
          return fetch(`http://127.0.0.1:${E2E_SOURCES_PORT}/api/trpc/config.agents`).then((r) => r.status, () => 0);
        },
        { timeout: this.opts.readyTimeoutMs },
      )
      .toBe(200);
  }

  /** A graceful stop (SIGTERM), as a deploy's restart would; resolves once the process exited. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await exited;
  }
}
