// What the MCP tool source shows of each configured server (types only): its connection state and what it offers.

/** A server's connection state as the MCP tool source reports it. */
export interface McpServerStatus {
  name: string;
  transport: 'stdio' | 'http';
  state: 'connecting' | 'connected' | 'disconnected' | 'failed';
  error?: string;
  toolCount: number;
  /** Resources and prompts the server lists, when it offers them. */
  resourceCount?: number;
  promptCount?: number;
  /** Consecutive failed connection attempts (0 once connected and stable). */
  attempts?: number;
  /** Epoch ms of the next reconnect attempt while `disconnected`. */
  retryAt?: number;
  /** Listed tools the gateway could not offer, with the reason. */
  skipped?: string[];
}

/** A server's state with the name a cell uses for it (catalog/view.ts projects it). */
export interface McpServerView extends McpServerStatus {
  /** The property a cell writes for it (`MCP.<callableName>`): the catalog's projection of the server name. */
  callableName: string;
}
