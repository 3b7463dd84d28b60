// The Sources panel's form as data: text fields -> the sources.add input, and the state line of a source.
import type { AddSourceInput, SourceView } from '../api.ts';

export type SourceKind = 'mcp-stdio' | 'mcp-http' | 'openapi';

export interface SourceForm {
  kind: SourceKind;
  name: string;
  command: string;
  /** One argument per line (an argument may hold spaces). */
  args: string;
  /** KEY=value per line. */
  env: string;
  url: string;
  /** Name: value per line. */
  headers: string;
  /** OpenAPI: a document URL or a path on the Gateway's machine, or the uploaded file's text. */
  documentUrl: string;
  documentText?: string;
  documentFileName?: string;
  baseUrl: string;
  authValue: string;
}

export const EMPTY_FORM: SourceForm = { kind: 'mcp-stdio', name: '', command: '', args: '', env: '', url: '', headers: '', documentUrl: '', baseUrl: '', authValue: '' };

function lines(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

/** `A=1` lines (or `Name: value` with `sep` ":") -> a record; throws naming the bad line. */
export function pairs(text: string, sep: '=' | ':', what: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const line of lines(text)) {
    const at = line.indexOf(sep);
    if (at <= 0) throw new Error(`${what}: "${line}" is not ${sep === '=' ? 'KEY=value' : 'Name: value'}`);
    out[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

export function stdioParts(form: SourceForm): { command: string; args?: string[]; env?: Record<string, string> } {
  const args = lines(form.args);
  const env = pairs(form.env, '=', 'env');
  return { command: form.command.trim(), ...(args.length > 0 ? { args } : {}), ...(env ? { env } : {}) };
}

/** The sources.add input for the form; stdio needs the confirmed command line. Throws with what to fix. */
export function addInput(form: SourceForm, confirmCommandLine?: string): AddSourceInput {
  const name = form.name.trim();
  if (!name) throw new Error('give the source a name (it becomes MCP.<name> or the owner of its tools)');
  if (form.kind === 'mcp-stdio') {
    if (!form.command.trim()) throw new Error('give the command that starts the server, e.g. node');
    return { kind: 'mcp-stdio', name, ...stdioParts(form), confirmCommandLine: confirmCommandLine ?? '' };
  }
  if (form.kind === 'mcp-http') {
    if (!/^https?:\/\//i.test(form.url.trim())) throw new Error('give the server URL, e.g. http://127.0.0.1:4000/mcp');
    const headers = pairs(form.headers, ':', 'headers');
    return { kind: 'mcp-http', name, url: form.url.trim(), ...(headers ? { headers } : {}) };
  }
  const auth = form.authValue.trim() ? { auth: { header: 'Authorization', value: form.authValue.trim() } } : {};
  const baseUrl = form.baseUrl.trim() ? { baseUrl: form.baseUrl.trim() } : {};
  if (form.documentText !== undefined) return { kind: 'openapi', name, documentText: form.documentText, ...baseUrl, ...auth };
  if (!form.documentUrl.trim()) throw new Error('upload an OpenAPI document (JSON or YAML), or give its http(s) URL or its path on the Gateway\'s machine');
  return { kind: 'openapi', name, document: form.documentUrl.trim(), ...baseUrl, ...auth };
}

/** "connected with 5 tools", "connecting…", "failed: <reason>". */
export function stateLine(source: SourceView): string {
  if (source.state === 'connected') return `connected with ${source.toolCount} tool${source.toolCount === 1 ? '' : 's'}`;
  if (source.state === 'connecting') return 'connecting…';
  if (source.state === 'disconnected') return `disconnected${source.error ? `: ${source.error}` : ''}; reconnecting`;
  return `failed: ${source.error ?? 'unknown reason'}`;
}

/** What changes the catalog: a source appearing, going, or changing state or tool count. */
export function catalogSignature(sources: readonly SourceView[] | undefined): string {
  return (sources ?? []).map((s) => `${s.name}:${s.state}:${s.toolCount}`).join('|');
}
