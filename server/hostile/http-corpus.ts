// The hostile HTTP corpus: one script per attack on the running server in http/, each with its attack and finding in a header; the target they run against and the loader.
/*
 * A script opens with comment lines, as the cells do:
 *   // attack:  what the script does, as a client on the machine would
 *   // finding: the issue finding it guards
 * and exports `run(target)`, which makes the attack over plain HTTP (or the `codemode` command) and resolves with
 * what went wrong: an empty list when every defense held. Scripts reach the server only through the target's
 * address; `operatorCookie` is the operator's hand, used only where the attack needs the operator to do what an
 * operator does (load an OpenAPI document someone else wrote). Runner: http-corpus.test.ts, against a real server
 * with small shares (HOSTILE_SHARES) so each share is reached in a few requests, and a normal client checked after
 * every script.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const HTTP_CORPUS_DIR = fileURLToPath(new URL('./http/', import.meta.url));

/** The shares the runner's server gives each class: small, so a script reaches each one quickly. */
export const HOSTILE_SHARES = Object.freeze({
  operator: { liveTurns: 64, eventStreams: 16, suspendedRuns: 24, mcpSessions: 4, queuedJobs: 4 },
  client: { liveTurns: 8, eventStreams: 4, suspendedRuns: 12, mcpSessions: 3, queuedJobs: 4 },
  anonymous: { liveTurns: 4, eventStreams: 2, suspendedRuns: 6, mcpSessions: 2, queuedJobs: 2 },
});
/** The runner's /mcp idle limit: short, so a script can see a pinging session closed. */
export const HOSTILE_MCP_IDLE_SECONDS = 2;

export interface HttpTarget {
  port: number;
  /** An API key of the server (`server.clients`): a client with shares of its own, the attack's bystander. */
  key: string;
  /** The operator's cookie header value; only for what an operator does (see the header). */
  operatorCookie: string;
  /** The config file the server runs with (for `codemode mcp` on stdio over the same config). */
  configFile: string;
}

export interface HttpAttack {
  name: string;
  attack: string;
  finding: string;
  run(target: HttpTarget): Promise<string[]>;
}

function header(code: string, key: string): string | undefined {
  return code.match(new RegExp(`^// ${key}: (.*)$`, 'm'))?.[1]?.trim();
}

/** Every script in http/ (kit.ts is their helper, not an attack), in name order. */
export async function loadHttpCorpus(dir = HTTP_CORPUS_DIR): Promise<HttpAttack[]> {
  const names = readdirSync(dir)
    .filter((f) => /^\d+-.*\.ts$/.test(f))
    .sort();
  const out: HttpAttack[] = [];
  for (const name of names) {
    const file = join(dir, name);
    const code = readFileSync(file, 'utf8');
    const attack = header(code, 'attack');
    const finding = header(code, 'finding');
    if (!attack || !finding) throw new Error(`${name}: needs // attack: and // finding: header lines`);
    const mod = (await import(pathToFileURL(file).href)) as { run?: HttpAttack['run'] };
    if (typeof mod.run !== 'function') throw new Error(`${name}: must export run(target)`);
    out.push({ name, attack, finding, run: mod.run });
  }
  return out;
}
