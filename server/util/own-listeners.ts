// The addresses this process serves on: a request the Gateway makes on a guest's behalf must never reach them.
//
// The playground's API answers loopback requests without credentials (turns.prepare hands out tokens), so an
// outbound request a cell can steer (an OpenAPI tool call, a document fetch) that lands on the playground's
// own port turns the cell into an API client of the Gateway it runs in. The HTTP server notes where it listens
// when it binds (a process fact, like its pid), and the address checks ask here.
import { networkInterfaces } from 'node:os';
import { parseAddress } from './addresses.ts';

interface Listener {
  /** The canonical bound address ("0.0.0.0" or "::" for a wildcard bind). */
  address: string;
  port: number;
}

const listeners = new Set<Listener>();

/** Notes a bound listener; returns the call that forgets it (when the server closes). */
export function noteOwnListener(bindHost: string, port: number): () => void {
  const parsed = parseAddress(bindHost === 'localhost' ? '127.0.0.1' : bindHost);
  const listener: Listener = { address: parsed?.address ?? bindHost, port };
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

function localAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(networkInterfaces())) {
    for (const i of list ?? []) {
      const parsed = parseAddress(i.address);
      if (parsed) out.add(parsed.address);
    }
  }
  return out;
}

/**
 * Whether connecting to `address` (a literal, any spelling) on `port` reaches a listener of this process: the
 * bound address itself, any loopback or unspecified address for a loopback or wildcard bind, and any of the
 * machine's own addresses for a wildcard bind.
 */
export function isOwnListener(address: string, port: number): boolean {
  const target = parseAddress(address);
  if (!target) return false;
  for (const listener of listeners) {
    if (listener.port !== port) continue;
    if (target.address === listener.address || target.class === 'unspecified') return true;
    const bound = parseAddress(listener.address);
    if (bound?.class === 'loopback' && target.class === 'loopback') return true;
    if (bound?.class === 'unspecified' && (target.class === 'loopback' || localAddresses().has(target.address))) return true;
  }
  return false;
}
