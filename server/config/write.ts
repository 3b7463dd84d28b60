// Writing the config file: read as JSON, changed by the caller, validated as the next start would, the previous file kept as <file>.bak.
import { copyFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError } from '../errors.ts';
import { isRecord } from '../util/is-record.mjs';
import { parseJsonText } from './json.ts';
import { parseGatewayConfig } from './load.ts';

/** The config file's JSON object, to change and hand to writeConfigJson. */
export function readConfigJson(file: string): Record<string, unknown> {
  const json = parseJsonText(readFileSync(file, 'utf8'), file);
  if (!isRecord(json)) throw new ConfigError('', `${file} does not hold a JSON object`);
  return json;
}

/**
 * Writes `json` as the config file: validated first (a file the next start would refuse is never written), the
 * previous file kept as `<file>.bak`, written through a temporary file and a rename. Returns the backup's path.
 */
export function writeConfigJson(file: string, json: Record<string, unknown>): string {
  parseGatewayConfig(json, dirname(file));
  const backup = `${file}.bak`;
  if (existsSync(file)) copyFileSync(file, backup);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(json, null, 2)}\n`);
  renameSync(temp, file);
  return backup;
}
