// Types of demo/openapi/github/server.mjs for the TypeScript tests that start it.
export interface GitHubFixture {
  url: string;
  port: number;
  requests: Array<{ method: string | undefined; path: string; headers: Record<string, string | string[] | undefined> }>;
  close(): Promise<void>;
}
export declare function startGitHubFixture(opts?: { port?: number }): Promise<GitHubFixture>;
