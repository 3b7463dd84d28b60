// Types of demo/openapi/server.mjs for the TypeScript tests that start it.
export declare const INVENTORY_DOCUMENT: string;
export interface InventoryServer {
  url: string;
  port: number;
  requests: Array<{ method: string | undefined; path: string; headers: Record<string, string | string[] | undefined> }>;
  close(): Promise<void>;
}
export declare function startInventoryServer(opts?: { port?: number; token?: string }): Promise<InventoryServer>;
