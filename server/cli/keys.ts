// `codemode keys`: API keys per client in the config file (server.clients), stored as their SHA-256 only; each key is an owner of its own shares.
import { newApiKey } from '../access/owners.ts';
import { readConfigJson, writeConfigJson } from '../config/write.ts';
import { isRecord } from '../util/is-record.mjs';

export const KEYS_USAGE = `  codemode keys add NAME | list | remove NAME
      API keys per client (server.clients in the config file). add mints a key, writes only its SHA-256 into
      the config (the previous file kept as .bak) and prints the key once on stdout; the client sends it as
      "Authorization: Bearer <key>" and gets shares of its own (server.shares.client). list names the clients;
      remove deletes one (its key stops working). A running server takes the change up at its next start.`;

interface KeysIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

function clientsOf(json: Record<string, unknown>): Record<string, unknown> {
  const server = json['server'] ?? (json['server'] = {});
  if (!isRecord(server)) throw new Error('"server" in the config file is not an object');
  const clients = server['clients'] ?? (server['clients'] = {});
  if (!isRecord(clients)) throw new Error('"server.clients" in the config file is not an object');
  return clients;
}

/** Runs one `keys` subcommand against `file`; returns the exit code (0 done, 2 usage or config problem). */
export function runKeys(file: string, args: readonly string[], io: KeysIo): number {
  const [action, name, ...extra] = args;
  try {
    if (action === 'list' && name === undefined) {
      const clients = Object.keys(clientsOf(readConfigJson(file)));
      if (clients.length === 0) io.err(`no API keys in ${file}; mint one with \`codemode keys add NAME\``);
      for (const client of clients) io.out(client);
      return 0;
    }
    if ((action === 'add' || action === 'remove') && name !== undefined && extra.length === 0) {
      const json = readConfigJson(file);
      const clients = clientsOf(json);
      if (action === 'add') {
        if (name in clients) {
          io.err(`codemode keys: "${name}" already has a key in ${file}; \`codemode keys remove ${name}\` first to replace it`);
          return 2;
        }
        const { key, keySha256 } = newApiKey();
        clients[name] = { keySha256 };
        const backup = writeConfigJson(file, json);
        io.out(key);
        io.err(
          `wrote server.clients.${name} (the key's SHA-256, never the key) to ${file}; previous file kept as ${backup}. ` +
            'The key above is shown once: give it to the client, which sends it as "Authorization: Bearer <key>". Restart the server to take it up.',
        );
        return 0;
      }
      if (!(name in clients)) {
        io.err(`codemode keys: no client "${name}" in ${file}; \`codemode keys list\` names them`);
        return 2;
      }
      delete clients[name];
      const backup = writeConfigJson(file, json);
      io.err(`removed server.clients.${name} from ${file} (previous file kept as ${backup}); its key stops working when the server next starts`);
      return 0;
    }
  } catch (err) {
    io.err(`codemode keys: ${(err as Error).message}`);
    return 2;
  }
  io.err(`codemode keys: expected add NAME, list or remove NAME\n${KEYS_USAGE}`);
  return 2;
}
