// Owners: who holds a share of the Gateway's shared resources, and how an owner is told from a request's credentials.
/*
 * A limit counted per remote address or per turn lets one client take everything: every loopback client is one
 * address, and a client makes turns for free. So each shared resource (live turns, event streams, suspended-run
 * slots, /mcp sessions, places in the grep and typecheck queues) is counted per owner, and an owner is something
 * a client cannot multiply by itself:
 *   - the operator: the page, by its cookie;
 *   - an API client: whoever presents a key of `server.clients` (`codemode keys add NAME`), one owner per key;
 *     the access token and mcpServer.token are one owner each (their holders share it);
 *   - anonymous: every other loopback client, together, with a small share;
 *   - local: the in-process caller (the CLI, tests, the test-plan runner), the one trusted party of its process,
 *     bounded only by the process totals.
 * The owner rides on the records that hold the resource (a turn's scope, and through it its runs and their
 * queued jobs; an MCP session; an event stream), never beside them. Its `shares` are its class's sizes from the
 * config, resolved when the owner is made, so whoever counts reads them from the owner itself.
 */
import type { OwnerClass, ServerOptions, ShareResource, ShareSizes } from '../config/types.ts';
import { sharePath } from '../config/shares.ts';
import { newToken, tokenDigest } from './tokens.ts';

export type OwnerKind = OwnerClass | 'local';

export interface Owner {
  /** Stable within the process: `operator`, `client:<name>`, `token:access`, `token:mcp`, `anonymous`, `local`. */
  readonly id: string;
  readonly kind: OwnerKind;
  /** How messages name it: "the operator", "API client \"ci\"", "the clients without a key". */
  readonly label: string;
  /** What it may hold of each resource (Infinity: only the process totals bound it). */
  readonly shares: ShareSizes;
}

const UNBOUNDED: ShareSizes = Object.freeze({ liveTurns: Infinity, eventStreams: Infinity, suspendedRuns: Infinity, mcpSessions: Infinity, queuedJobs: Infinity });

/** The in-process caller: the CLI, tests, the test-plan runner. */
export const LOCAL_OWNER: Owner = Object.freeze({ id: 'local', kind: 'local', label: 'this process', shares: UNBOUNDED });

/** Where an owner's share of `resource` is set, for messages ("the limit (server.shares.client.liveTurns)"). */
export function shareName(owner: Owner, resource: ShareResource): string {
  return owner.kind === 'local' ? 'the process total' : sharePath(owner.kind, resource);
}

/** What a refusal says after "the limit (...)": how to get more room, by the owner's class. */
export function moreRoomHint(owner: Owner): string {
  if (owner.kind === 'anonymous') return 'clients without a key share one small share: ask the operator for a key (`codemode keys add NAME`) and send it as "Authorization: Bearer <key>"';
  if (owner.kind === 'client') return 'each key is its own owner: the operator can mint another key (`codemode keys add NAME`) for another client';
  return 'raise the share in the config if this is expected';
}

/** How an API key begins (tokens.ts prefixes say what a leaked token opens): a bearer with it is meant as a key. */
export const API_KEY_PREFIX = 'ck_';

/** A freshly minted API key and what the config keeps of it. */
export function newApiKey(): { key: string; keySha256: string } {
  const key = newToken(API_KEY_PREFIX.slice(0, -1));
  return { key, keySha256: tokenDigest(key).toString('hex') };
}

/** The owners one server knows: built once from `server.clients` and `server.shares`. */
export class OwnerDirectory {
  readonly operator: Owner;
  readonly anonymous: Owner;
  /** Holders of the access token (an exposed server's bearer), together. */
  readonly accessToken: Owner;
  /** Holders of mcpServer.token, together. */
  readonly mcpToken: Owner;
  /** Key digest (hex) -> its client's owner. */
  private readonly byKeyDigest = new Map<string, Owner>();

  constructor(server: Pick<ServerOptions, 'clients' | 'shares'>) {
    const { shares } = server;
    this.operator = Object.freeze({ id: 'operator', kind: 'operator', label: 'the operator, the playground page', shares: shares.operator });
    this.anonymous = Object.freeze({ id: 'anonymous', kind: 'anonymous', label: 'the clients without a key', shares: shares.anonymous });
    this.accessToken = Object.freeze({ id: 'token:access', kind: 'client', label: 'the access-token holders', shares: shares.client });
    this.mcpToken = Object.freeze({ id: 'token:mcp', kind: 'client', label: 'the mcpServer.token holders', shares: shares.client });
    for (const [name, entry] of Object.entries(server.clients)) {
      this.byKeyDigest.set(entry.keySha256, Object.freeze({ id: `client:${name}`, kind: 'client', label: `API client "${name}"`, shares: shares.client }));
    }
  }

  /** The client a presented key belongs to, or undefined (looked up by digest: the key itself is never compared). */
  byKey(presented: string): Owner | undefined {
    return this.byKeyDigest.get(tokenDigest(presented).toString('hex'));
  }

  /** Whether any API keys are configured. */
  get hasKeys(): boolean {
    return this.byKeyDigest.size > 0;
  }
}
