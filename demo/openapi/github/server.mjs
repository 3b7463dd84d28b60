// A loopback stand-in for a few GitHub REST endpoints, answering from fixture data (fixtures.json: the examples
// GitHub publishes in its own REST API description). It is a fixture, not GitHub: issues live in memory per
// repository, and anything else answers 404 as GitHub does.
//
// `node demo/openapi/github/server.mjs [port]` serves it on 127.0.0.1 (default 4012) and prints "listening <url>";
// add GitHub's description (node_modules/@octokit/openapi/generated/api.github.com.json) as an OpenAPI source with
// that URL as its base URL. Tests import startGitHubFixture() and get a fresh store on a free port.
//
// Served: GET/POST /repos/{owner}/{repo}/issues, GET /repos/{owner}/{repo}/issues/{issue_number},
// GET/POST /repos/{owner}/{repo}/issues/{issue_number}/comments, GET /repos/{owner}/{repo}/labels, GET /zen.
/** @import { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http' */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A fixture issue (GitHub's example, as JSON): the fields the fixture reads and writes; the rest pass through.
 * @typedef {{ id: number, number: number, state: string, comments: number, [field: string]: unknown }} Issue
 */
/** One repository's issues and, by issue number, their comments. @typedef {{ issues: Issue[], comments: Map<number, unknown[]> }} RepoState */
/**
 * A started fixture: its address, every request it saw (for tests) and how to stop it.
 * @typedef {{ url: string, port: number, requests: Array<{ method: string | undefined, path: string, headers: IncomingHttpHeaders }>, close(): Promise<void> }} GitHubFixture
 */

/** @type {{ zen: string, issues: Issue[], issue: Issue, comments: unknown[], comment: Record<string, unknown>, labels: Array<Record<string, unknown>> }} */
const FIXTURES = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'fixtures.json'), 'utf8'));
const MAX_BODY_BYTES = 64 * 1024;
/** The repository the fixtures are about; other repositories get the same data under their own URLs. */
const FIXTURE_REPO = 'octocat/Hello-World';
const NOT_FOUND = { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' };

/** @param {ServerResponse} res @param {number} status @param {unknown} body */
function send(res, status, body) {
  if (typeof body === 'string') {
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(body);
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

/** @param {IncomingMessage} req @returns {Promise<string>} */
function readBody(req) {
  return new Promise((resolveBody, reject) => {
    /** @type {Buffer[]} */
    const chunks = [];
    let size = 0;
    req.on('data', (/** @type {Buffer} */ chunk) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) reject(new Error('body too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolveBody(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * A fixture value moved to another repository: every URL and field naming octocat/Hello-World names `repo`.
 * @template T @param {T} value @param {string} repo @returns {T}
 */
function inRepo(value, repo) {
  return JSON.parse(JSON.stringify(value).split(FIXTURE_REPO).join(repo));
}

/**
 * Starts the fixture on 127.0.0.1:`port` (0: a free port). Resolves { url, port, close, requests }.
 * @param {{ port?: number }} [options]
 * @returns {Promise<GitHubFixture>}
 */
export function startGitHubFixture({ port = 0 } = {}) {
  /** "owner/repo" -> { issues, comments: Map<number, comment[]> } @type {Map<string, RepoState>} */
  const repos = new Map();
  /** @param {string} repo @returns {RepoState} */
  const repoState = (repo) => {
    let state = repos.get(repo);
    if (!state) {
      const issues = inRepo(FIXTURES.issues, repo);
      state = { issues, comments: new Map(issues.map((i) => [i.number, inRepo(FIXTURES.comments, repo)])) };
      repos.set(repo, state);
    }
    return state;
  };
  /** @type {GitHubFixture['requests']} */
  const requests = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    requests.push({ method: req.method, path: url.pathname + url.search, headers: req.headers });
    try {
      if (url.pathname === '/zen' && req.method === 'GET') return send(res, 200, FIXTURES.zen);
      const match = /^\/repos\/([^/]+)\/([^/]+)\/(issues|labels)(?:\/(\d+)(\/comments)?)?$/.exec(url.pathname);
      if (!match) return send(res, 404, NOT_FOUND);
      // the pattern's first two groups always take part in a match
      const repo = `${decodeURIComponent(/** @type {string} */ (match[1]))}/${decodeURIComponent(/** @type {string} */ (match[2]))}`;
      const state = repoState(repo);
      const [, , , what, number, comments] = match;
      if (what === 'labels' && !number && req.method === 'GET') return send(res, 200, inRepo(FIXTURES.labels, repo));
      if (what !== 'issues') return send(res, 404, NOT_FOUND);
      if (!number) {
        if (req.method === 'GET') {
          const wanted = url.searchParams.get('state') ?? 'open';
          return send(res, 200, state.issues.filter((i) => wanted === 'all' || i.state === wanted));
        }
        if (req.method === 'POST') return send(res, ...createIssue(state, repo, await readBody(req)));
        return send(res, 404, NOT_FOUND);
      }
      const issue = state.issues.find((i) => i.number === Number(number));
      if (!issue) return send(res, 404, NOT_FOUND);
      if (!comments && req.method === 'GET') return send(res, 200, issue);
      if (comments && req.method === 'GET') return send(res, 200, state.comments.get(issue.number) ?? []);
      if (comments && req.method === 'POST') {
        let body;
        try {
          body = JSON.parse(await readBody(req));
        } catch {
          return send(res, 400, { message: 'Problems parsing JSON' });
        }
        if (typeof body?.body !== 'string') return send(res, 422, { message: 'Validation Failed', errors: [{ field: 'body', code: 'missing_field' }] });
        const list = state.comments.get(issue.number) ?? [];
        const comment = { ...inRepo(FIXTURES.comment, repo), id: 1000 + list.length, body: body.body, created_at: new Date().toISOString(), updated_at: new Date().toISOString() };
        list.push(comment);
        state.comments.set(issue.number, list);
        issue.comments = list.length;
        return send(res, 201, comment);
      }
      return send(res, 404, NOT_FOUND);
    } catch (err) {
      send(res, 500, { message: String(/** @type {{ message?: unknown } | null | undefined} */ (err)?.message ?? err) });
    }
  });
  return new Promise((resolveStart, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const actual = typeof address === 'object' && address ? address.port : port;
      resolveStart({ url: `http://127.0.0.1:${actual}`, port: actual, requests, close: () => new Promise((/** @type {() => void} */ done) => server.close(() => done())) });
    });
  });
}

/**
 * POST /repos/{owner}/{repo}/issues: 201 with the new issue (the fixture issue, renumbered and retitled), or GitHub's 400/422.
 * @param {RepoState} state @param {string} repo @param {string} text
 * @returns {[number, unknown]}
 */
function createIssue(state, repo, text) {
  /** @type {{ title?: unknown, body?: unknown, labels?: unknown } | null | undefined} */
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    return [400, { message: 'Problems parsing JSON' }];
  }
  if (typeof body?.title !== 'string' && typeof body?.title !== 'number') return [422, { message: 'Validation Failed', errors: [{ resource: 'Issue', field: 'title', code: 'missing_field' }] }];
  const number = Math.max(0, ...state.issues.map((i) => i.number)) + 1;
  const base = inRepo(FIXTURES.issue, repo);
  const now = new Date().toISOString();
  const labels = (Array.isArray(body?.labels) ? body.labels : [])
    .map((/** @type {{ name?: unknown } | string | null | undefined} */ l) => (typeof l === 'string' ? l : l?.name))
    .filter((l) => typeof l === 'string');
  const issue = {
    ...base,
    id: base.id + number,
    number,
    title: String(body.title),
    body: typeof body.body === 'string' ? body.body : null,
    state: 'open',
    comments: 0,
    closed_at: null,
    closed_by: null,
    created_at: now,
    updated_at: now,
    url: `https://api.github.com/repos/${repo}/issues/${number}`,
    html_url: `https://github.com/${repo}/issues/${number}`,
    labels: labels.map((name, i) => ({ ...inRepo(FIXTURES.labels[0], repo), id: 9000 + i, name, url: `https://api.github.com/repos/${repo}/labels/${encodeURIComponent(name)}` })),
  };
  state.issues.unshift(issue);
  state.comments.set(number, []);
  return [201, issue];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = await startGitHubFixture({ port: Number(process.argv[2] ?? 4012) });
  console.log(`listening ${started.url}`);
}
