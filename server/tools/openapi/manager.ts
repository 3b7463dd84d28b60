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
  private firstLoads: Promise<void> | undefined;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly opts: {
      baseDir: string;
      env?: Readonly<Record<string, string | undefined>>;
      /** sources.maxDocumentBytes */
      maxDocumentBytes?: number;
      log?: (line: string) => void;
      /** Names the Gateway's own tools hold (core and plugins): an operation named like one is left out, never shadows it. */
      reservedNames?: () => Iterable<string>;
    },
  ) {}

  /** Start loading a source; returns at once. Throws for a name already held. */
  add(name: string, config: OpenApiSourceConfig): void {
    if (this.entries.some((e) => e.name === name)) throw new Error(`an OpenAPI source named "${name}" already exists; remove it first or pick another name`);
    const entry: Entry = { name, config, loading: Promise.resolve(), closed: false };
    entry.loading = loadOpenApiSource(name, config, {
      baseDir: this.opts.baseDir,
      ...(this.opts.env ? { env: this.opts.env } : {}),
      ...(this.opts.maxDocumentBytes !== undefined ? { maxDocumentBytes: this.opts.maxDocumentBytes } : {}),
    }).then(
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

  /** Marks the sources added so far (the config's) as the ones turn preparation waits for; later additions never block a turn. */
  start(): this {
    this.firstLoads ??= this.ready();
    return this;
  }

  /** Resolves when the config's sources have loaded or failed (at once before start()). */
  firstReady(): Promise<void> {
    return this.firstLoads ?? Promise.resolve();
  }

  tools(): ToolDefinition[] {
    return this.admitted().tools;
  }

  /**
   * The loaded sources' tools whose names are free: a name the Gateway's tools hold, or an earlier source's, would
   * put two tools under one callable name (the later one replaced core `read` and `exec` in cells). The rest are
   * left out with the reason, shown with their source.
   */
  private admitted(): { tools: ToolDefinition[]; conflicts: Map<Entry, string[]> } {
    const taken = new Map<string, string>();
    for (const name of this.opts.reservedNames?.() ?? []) taken.set(name, `the Gateway's tool "${name}"`);
    const tools: ToolDefinition[] = [];
    const conflicts = new Map<Entry, string[]>();
    for (const e of this.entries) {
      for (const tool of e.loaded?.tools ?? []) {
        const holder = taken.get(tool.name);
        if (holder) {
          conflicts.set(e, [...(conflicts.get(e) ?? []), `"${tool.name}": the name is taken by ${holder}; give the operation another operationId`]);
          continue;
        }
        taken.set(tool.name, `the "${e.name}" OpenAPI source's "${tool.name}"`);
        tools.push(tool);
      }
    }
    return { tools, conflicts };
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
    const { conflicts } = this.admitted();
    return this.entries.map((e) => {
      const document = e.config.documentText !== undefined ? 'uploaded document' : (e.config.document ?? '');
      if (e.loaded) {
        const skipped = [...e.loaded.skipped, ...(conflicts.get(e) ?? [])];
        return {
          name: e.name,
          state: 'connected' as const,
          toolCount: e.loaded.tools.length - (conflicts.get(e)?.length ?? 0),
          document,
          baseUrl: e.loaded.baseUrl,
          allowedHosts: e.loaded.allowedHosts,
          ...(e.loaded.title ? { title: e.loaded.title } : {}),
          ...(skipped.length > 0 ? { skipped } : {}),
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
