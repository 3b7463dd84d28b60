// The OpenAPI tool sources of one Gateway: those in the config and those the operator adds at runtime.
//
// Each source loads in the background (a document URL may be slow) through connecting -> connected or
// failed; tools() offers the tools of connected sources, read whenever a turn's catalog is built, so a
// source that finishes loading appears in the next turn. revision() rises on every change.
import type { OpenApiSourceConfig } from '../../config/types.ts';
import type { ToolDefinition } from '../types.ts';
import { loadOpenApiSource, type LoadedOpenApiSource } from './source.ts';

export interface OpenApiSourceStatus {
  name: string;
  state: 'connecting' | 'connected' | 'failed';
  error?: string;
  toolCount: number;
  /** Where the document came from: its path or URL, or "uploaded document". */
  document: string;
  baseUrl?: string;
  allowedHosts?: string[];
  title?: string;
  /** Operations left out, with why. */
  skipped?: string[];
}

interface Entry {
  name: string;
  config: OpenApiSourceConfig;
  loading: Promise<void>;
  loaded?: LoadedOpenApiSource;
  error?: string;
  closed: boolean;
}

export class OpenApiSources {
  private entries: Entry[] = [];
  private rev = 0;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly opts: { baseDir: string; env?: Readonly<Record<string, string | undefined>>; log?: (line: string) => void },
  ) {}

  /** Start loading a source; returns at once. Throws for a name already held. */
  add(name: string, config: OpenApiSourceConfig): void {
    if (this.entries.some((e) => e.name === name)) throw new Error(`an OpenAPI source named "${name}" already exists; remove it first or pick another name`);
    const entry: Entry = { name, config, loading: Promise.resolve(), closed: false };
    entry.loading = loadOpenApiSource(name, config, { baseDir: this.opts.baseDir, ...(this.opts.env ? { env: this.opts.env } : {}) }).then(
      (loaded) => {
        if (entry.closed) return;
        entry.loaded = loaded;
        this.bump();
        this.opts.log?.(`openapi: ${name} loaded (${loaded.tools.length} tools, calls go to ${loaded.baseUrl})`);
      },
      (err: unknown) => {
        if (entry.closed) return;
        entry.error = err instanceof Error ? err.message : String(err);
        this.bump();
        this.opts.log?.(`openapi: ${name} failed: ${entry.error}`);
      },
    );
    this.entries = [...this.entries, entry];
    this.bump();
  }

  remove(name: string): boolean {
    const entry = this.entries.find((e) => e.name === name);
    if (!entry) return false;
    entry.closed = true;
    this.entries = this.entries.filter((e) => e !== entry);
    this.bump();
    return true;
  }

  has(name: string): boolean {
    return this.entries.some((e) => e.name === name);
  }

  config(name: string): OpenApiSourceConfig | undefined {
    return this.entries.find((e) => e.name === name)?.config;
  }

  /** Resolves when the named source (or, without a name, every source) has loaded or failed. */
  async ready(name?: string): Promise<void> {
    await Promise.all(this.entries.filter((e) => name === undefined || e.name === name).map((e) => e.loading));
  }

  tools(): ToolDefinition[] {
    return this.entries.flatMap((e) => e.loaded?.tools ?? []);
  }

  revision(): number {
    return this.rev;
  }

  /** Calls `listener` after every change (revision() has risen by then); returns the unsubscribe. */
  onChanged(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** One change: the revision rises and every listener hears it (one that throws is logged, the rest still hear it). */
  private bump(): void {
    this.rev += 1;
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch (err) {
        this.opts.log?.(`openapi: a change listener failed: ${(err as Error).message}`);
      }
    }
  }

  views(): OpenApiSourceStatus[] {
    return this.entries.map((e) => {
      const document = e.config.documentText !== undefined ? 'uploaded document' : (e.config.document ?? '');
      if (e.loaded) {
        return {
          name: e.name,
          state: 'connected' as const,
          toolCount: e.loaded.tools.length,
          document,
          baseUrl: e.loaded.baseUrl,
          allowedHosts: e.loaded.allowedHosts,
          ...(e.loaded.title ? { title: e.loaded.title } : {}),
          ...(e.loaded.skipped.length > 0 ? { skipped: e.loaded.skipped } : {}),
        };
      }
      if (e.error !== undefined) return { name: e.name, state: 'failed' as const, error: e.error, toolCount: 0, document };
      return { name: e.name, state: 'connecting' as const, toolCount: 0, document };
    });
  }

  close(): void {
    for (const e of this.entries) e.closed = true;
    this.entries = [];
  }
}
