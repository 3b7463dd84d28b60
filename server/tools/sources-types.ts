// Live tool sources as the Gateway API shows them (types only; server/gateway/sources.ts implements them).

export type AddSourceRequest =
  | {
      kind: 'mcp-stdio';
      name: string;
      command: string;
      args?: string[];
      env?: Record<string, string>;
      /** The exact command line sources.commandLine returned for this request: the operator saw and confirmed it. */
      confirmCommandLine: string;
    }
  | { kind: 'mcp-http'; name: string; url: string; headers?: Record<string, string> }
  | {
      kind: 'openapi';
      name: string;
      /** An http(s) URL of the document, or a file path on the Gateway's machine (relative to the config file's folder; refused while the server is exposed). */
      document?: string;
      /** The document's text (a file uploaded from the page). */
      documentText?: string;
      baseUrl?: string;
      auth?: { header?: string; value?: string; env?: string };
      allowedHosts?: string[];
    };

export type SourceKind = AddSourceRequest['kind'];

export interface SourceView {
  name: string;
  kind: SourceKind;
  /** `config`: loaded from the config file at start (or saved there since); `added`: added at runtime, not saved. */
  origin: 'config' | 'added';
  state: 'connecting' | 'connected' | 'disconnected' | 'failed';
  error?: string;
  toolCount: number;
  /** What it is: the command line, the URL, or the document. */
  detail: string;
  /** Operations or tools left out, with why. */
  skipped?: string[];
}

export interface SaveSourceResult {
  file: string;
  /** The previous config file, copied before writing. */
  backup: string;
  /** Where an uploaded OpenAPI document was written (next to the config file). */
  documentFile?: string;
}
