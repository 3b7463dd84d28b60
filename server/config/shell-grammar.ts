// Per-command argument grammars of the shell tool: which flags each allow-listed command may get, which take a
// value, and which values and operands are file paths. Pure: classifies an argv, touches no file.
//
// Why a grammar and not a look at each word: GNU tools parse argv with getopt_long, so a file can hide in an
// attached value (`-fFILE`), in a short-option cluster (`date -uf/etc/passwd` is `-u -f /etc/passwd`), in
// `--file=FILE`, or in the word after a flag (`--reference /etc/passwd`). This parser reads argv the way
// getopt_long does (clusters, attached and separate values, optional values only when attached, `--` ends
// options, options after operands are still options), so every path the command will open is found and
// handed back for confinement. Anything it cannot classify is refused: a flag that is not in the command's
// grammar (long options must be spelled in full: getopt's abbreviations are refused), a command with no
// grammar, `-` (standard input: the child has none), an operand the command would not treat as data.

/** What an option value or an operand is. `path` values are confined to the workspace by the caller. */
export type ValueKind =
  | { kind: 'path' }
  | { kind: 'text' }
  | { kind: 'number' }
  | { kind: 'choice'; choices: readonly string[] }
  /** Text the command parses as a date; a `TZ="..."` prefix would make GNU date load that file as a zone. */
  | { kind: 'date' };

export interface OptionSpec {
  /** Short letter(s) without the dash. */
  short?: string;
  /** Long name without the dashes. */
  long?: string;
  /** `none`: a plain flag; `required`: a value attached or in the next word; `optional`: a value only when attached (`-Ifmt`, `--opt=v`). */
  takes: 'none' | 'required' | 'optional';
  value?: ValueKind;
}

export interface CommandGrammar {
  options: readonly OptionSpec[];
  /** What a word that is not an option is; `none` refuses operands. */
  operands: ValueKind | { kind: 'none' } | { kind: 'date-format' };
  /** GNU echo parses no options with getopt: every word is printed as text. */
  noOptionParsing?: boolean;
  /** GNU head accepts the obsolete `-NUM` (= `-n NUM`) as its first word. */
  leadingNumberOption?: boolean;
}

const PATH: ValueKind = { kind: 'path' };
const TEXT: ValueKind = { kind: 'text' };
const NUMBER: ValueKind = { kind: 'number' };
const choice = (...choices: string[]): ValueKind => ({ kind: 'choice', choices });
const flag = (short: string | undefined, long?: string): OptionSpec => ({ ...(short ? { short } : {}), ...(long ? { long } : {}), takes: 'none' });

/** Every command has these; they print and exit. */
const COMMON: readonly OptionSpec[] = [flag(undefined, 'help'), flag(undefined, 'version')];
const WHEN = choice('always', 'yes', 'force', 'never', 'no', 'none', 'auto', 'tty', 'if-tty');

/**
 * The commands the shell tool knows how to confine. A `shellAllow` entry outside this table is refused at call
 * time: without a grammar there is no telling which words it opens.
 */
export const COMMAND_GRAMMARS: Readonly<Record<string, CommandGrammar>> = Object.freeze({
  ls: {
    // no -L/-H/--dereference*: following links is how a listing leaves the workspace; no --hyperlink: it prints the host name
    options: [
      ...COMMON,
      flag('a', 'all'),
      flag('A', 'almost-all'),
      flag('l'),
      flag('h', 'human-readable'),
      flag('1'),
      flag('R', 'recursive'),
      flag('r', 'reverse'),
      flag('t'),
      flag('S'),
      flag('X'),
      flag('U'),
      flag('v'),
      flag('x'),
      flag('C'),
      flag('m'),
      flag('c'),
      flag('u'),
      flag('d', 'directory'),
      flag('p'),
      flag('i', 'inode'),
      flag('s', 'size'),
      flag('n', 'numeric-uid-gid'),
      flag('g'),
      flag('o'),
      flag('G', 'no-group'),
      flag('Q', 'quote-name'),
      flag('b', 'escape'),
      flag('N', 'literal'),
      flag('k', 'kibibytes'),
      flag(undefined, 'si'),
      flag(undefined, 'full-time'),
      flag(undefined, 'group-directories-first'),
      // -F is a plain flag; only the long spelling takes an (attached) value
      flag('F'),
      { long: 'classify', takes: 'optional', value: WHEN },
      { long: 'color', takes: 'optional', value: WHEN },
      { long: 'sort', takes: 'required', value: choice('none', 'size', 'time', 'version', 'extension', 'width') },
      { long: 'time', takes: 'required', value: choice('atime', 'access', 'use', 'ctime', 'status', 'mtime', 'modification', 'birth', 'creation') },
      { long: 'format', takes: 'required', value: choice('across', 'commas', 'horizontal', 'long', 'single-column', 'verbose', 'vertical') },
      { long: 'time-style', takes: 'required', value: TEXT },
      { long: 'indicator-style', takes: 'required', value: choice('none', 'slash', 'file-type', 'classify') },
      { long: 'quoting-style', takes: 'required', value: choice('literal', 'locale', 'shell', 'shell-always', 'shell-escape', 'shell-escape-always', 'c', 'escape') },
      { short: 'w', long: 'width', takes: 'required', value: NUMBER },
      { short: 'T', long: 'tabsize', takes: 'required', value: NUMBER },
      { long: 'block-size', takes: 'required', value: TEXT },
      // glob patterns matched against names, never opened
      { short: 'I', long: 'ignore', takes: 'required', value: TEXT },
      { long: 'hide', takes: 'required', value: TEXT },
    ],
    operands: PATH,
  },
  cat: {
    options: [
      ...COMMON,
      flag('A', 'show-all'),
      flag('b', 'number-nonblank'),
      flag('e'),
      flag('E', 'show-ends'),
      flag('n', 'number'),
      flag('s', 'squeeze-blank'),
      flag('t'),
      flag('T', 'show-tabs'),
      flag('u'),
      flag('v', 'show-nonprinting'),
    ],
    operands: PATH,
  },
  // no --files0-from: the file it names is a list of further names, which this grammar cannot see
  wc: {
    options: [
      ...COMMON,
      flag('c', 'bytes'),
      flag('m', 'chars'),
      flag('l', 'lines'),
      flag('L', 'max-line-length'),
      flag('w', 'words'),
      { long: 'total', takes: 'required', value: choice('auto', 'always', 'only', 'never') },
    ],
    operands: PATH,
  },
  head: {
    options: [
      ...COMMON,
      { short: 'c', long: 'bytes', takes: 'required', value: NUMBER },
      { short: 'n', long: 'lines', takes: 'required', value: NUMBER },
      flag('q', 'quiet'),
      flag(undefined, 'silent'),
      flag('v', 'verbose'),
      flag('z', 'zero-terminated'),
    ],
    operands: PATH,
    leadingNumberOption: true,
  },
  // no -s/--set: it changes the clock; -f/--file and -r/--reference open files, so their values are confined
  date: {
    options: [
      ...COMMON,
      { short: 'd', long: 'date', takes: 'required', value: { kind: 'date' } },
      { short: 'f', long: 'file', takes: 'required', value: PATH },
      { short: 'r', long: 'reference', takes: 'required', value: PATH },
      { short: 'I', long: 'iso-8601', takes: 'optional', value: choice('date', 'hours', 'minutes', 'seconds', 'ns') },
      { long: 'rfc-3339', takes: 'required', value: choice('date', 'seconds', 'ns') },
      flag('R', 'rfc-email'),
      flag('u', 'utc'),
      flag(undefined, 'universal'),
      flag(undefined, 'debug'),
      flag(undefined, 'resolution'),
    ],
    // `+FORMAT` only: any other operand is MMDDhhmm[[CC]YY][.ss], which sets the clock
    operands: { kind: 'date-format' },
  },
  echo: { options: [], operands: TEXT, noOptionParsing: true },
  sleep: { options: COMMON, operands: NUMBER },
});

/** Whether this build has an argument grammar for `command` (own keys only: `constructor` is not a command). */
export function hasShellGrammar(command: string): boolean {
  return Object.hasOwn(COMMAND_GRAMMARS, command);
}

/** Why an allow-listed command without a grammar can never run, and what to list instead. */
export function missingGrammarReason(command: string): string {
  return `command ${JSON.stringify(command)} has no argument grammar in this build, so its arguments could not be confined and it could never run; list only commands it knows: ${Object.keys(COMMAND_GRAMMARS).join(', ')}`;
}

/** A word the grammar refused, and why; the caller turns it into the tool's error. */
export interface ArgRefusal {
  /** The argv word at fault (the whole word, as the caller passed it). */
  arg: string;
  /** What is wrong and what is allowed, without the tool prefix. */
  reason: string;
  /** `outside_workspace`-style refusals are the caller's to make; this one is about the grammar. */
  code: 'argument_not_allowed';
}

/** A value or operand the command will open: the caller must confine it to the workspace. */
export interface PathArg {
  arg: string;
  path: string;
}

export type ArgClassification = { ok: true; paths: PathArg[] } | { ok: false; refusal: ArgRefusal };

/** Numbers as GNU tools read them for counts and sizes: optional sign, digits, an optional unit suffix (`5`, `-3`, `1K`, `2MiB`, `0.5`, `1.5s`). */
const NUMBER_SPELLING = /^[-+]?\d+(\.\d+)?[A-Za-z]{0,3}$/;
const HEAD_OBSOLETE_NUMBER = /^-\d+[bkmcl]?$/;
const TZ_PREFIX = /TZ\s*=/i;

/** The flags a command's grammar allows, for error messages (`-a/--all, -l, --color[=V]`). */
export function describeOptions(grammar: CommandGrammar): string {
  if (grammar.noOptionParsing) return 'none (every word is printed as text)';
  const shown = grammar.options.map((o) => {
    const names = [o.short ? `-${o.short}` : undefined, o.long ? `--${o.long}` : undefined].filter(Boolean).join('/');
    return o.takes === 'required' ? `${names} VALUE` : o.takes === 'optional' ? `${names}[=VALUE]` : names;
  });
  return shown.join(', ');
}

function refuse(arg: string, reason: string, code: ArgRefusal['code'] = 'argument_not_allowed'): ArgClassification {
  return { ok: false, refusal: { arg, reason, code } };
}

/** Checks one value against its kind; a path is collected for confinement. */
function checkValue(arg: string, value: string, kind: ValueKind, what: string, paths: PathArg[]): ArgRefusal | undefined {
  switch (kind.kind) {
    case 'path':
      if (value === '-') return { arg, reason: `${what} "-" means standard input, which the command does not get; name a workspace file`, code: 'argument_not_allowed' };
      paths.push({ arg, path: value });
      return undefined;
    case 'text':
      return undefined;
    case 'number':
      return NUMBER_SPELLING.test(value) ? undefined : { arg, reason: `${what} must be a number (like 5, -3 or 1K), got ${JSON.stringify(value)}`, code: 'argument_not_allowed' };
    case 'choice':
      return kind.choices.includes(value)
        ? undefined
        : { arg, reason: `${what} must be one of ${kind.choices.join(', ')}, got ${JSON.stringify(value)}`, code: 'argument_not_allowed' };
    case 'date':
      return TZ_PREFIX.test(value) ? { arg, reason: `${what} may not name a time zone file (TZ=...); the date is read in UTC`, code: 'argument_not_allowed' } : undefined;
  }
}

/**
 * Reads `args` as `command`'s getopt_long would and returns every path it would open, or the first word it
 * cannot classify. `command` must already be on the allow list; one without a grammar is refused here.
 */
export function classifyArgs(command: string, args: readonly string[]): ArgClassification {
  const grammar = hasShellGrammar(command) ? COMMAND_GRAMMARS[command] : undefined;
  // config/load.ts refuses such a shellAllow and createShellTool another; reaching this is a host bug
  if (!grammar) throw new Error(`classifyArgs: ${missingGrammarReason(command)}`);
  const paths: PathArg[] = [];
  if (grammar.noOptionParsing) return { ok: true, paths };

  const short = new Map<string, OptionSpec>();
  const long = new Map<string, OptionSpec>();
  for (const o of grammar.options) {
    for (const letter of o.short ?? '') short.set(letter, o);
    if (o.long) long.set(o.long, o);
  }
  const allowed = () => `${command} allows: ${describeOptions(grammar)}`;
  const optionName = (o: OptionSpec) => (o.long ? `--${o.long}` : `-${o.short}`);

  let optionsEnded = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (optionsEnded || arg === '-' || !arg.startsWith('-')) {
      const refusal = checkOperand(command, grammar, arg, paths);
      if (refusal) return { ok: false, refusal };
      continue;
    }
    if (arg === '--') {
      optionsEnded = true;
      continue;
    }
    if (i === 0 && grammar.leadingNumberOption && HEAD_OBSOLETE_NUMBER.test(arg)) continue;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
      const spec = long.get(name);
      if (!spec) return refuse(arg, `${command} option --${name} is not allowed (long options must be spelled in full); ${allowed()}`);
      let value: string | undefined = eq >= 0 ? arg.slice(eq + 1) : undefined;
      if (spec.takes === 'none' && value !== undefined) return refuse(arg, `${command} option --${name} takes no value`);
      if (spec.takes === 'required' && value === undefined) {
        if (i + 1 >= args.length) return refuse(arg, `${command} option --${name} needs a value`);
        value = args[++i] ?? '';
      }
      if (value !== undefined && spec.value) {
        const refusal = checkValue(arg, value, spec.value, `the value of --${name}`, paths);
        if (refusal) return { ok: false, refusal };
      }
      continue;
    }
    // a cluster of short options: `-la`, `-n5`, `-uf/etc/passwd` (= -u -f /etc/passwd)
    for (let j = 1; j < arg.length; j++) {
      const letter = arg[j] ?? '';
      const spec = short.get(letter);
      if (!spec) return refuse(arg, `${command} option -${letter} is not allowed; ${allowed()}`);
      if (spec.takes === 'none') continue;
      const attached = arg.slice(j + 1);
      let value: string | undefined = attached === '' ? undefined : attached;
      if (spec.takes === 'required' && value === undefined) {
        if (i + 1 >= args.length) return refuse(arg, `${command} option -${letter} (${optionName(spec)}) needs a value`);
        value = args[++i] ?? '';
      }
      if (value !== undefined && spec.value) {
        const refusal = checkValue(arg, value, spec.value, `the value of -${letter}`, paths);
        if (refusal) return { ok: false, refusal };
      }
      break; // the rest of the word was this option's value
    }
  }
  return { ok: true, paths };
}

function checkOperand(command: string, grammar: CommandGrammar, arg: string, paths: PathArg[]): ArgRefusal | undefined {
  const operands = grammar.operands;
  switch (operands.kind) {
    case 'none':
      return { arg, reason: `${command} takes no operands`, code: 'argument_not_allowed' };
    case 'date-format':
      return arg.startsWith('+')
        ? undefined
        : { arg, reason: `date operands must be a +FORMAT (like +%Y-%m-%d); any other operand sets the clock`, code: 'argument_not_allowed' };
    default:
      return checkValue(arg, arg, operands, `${command} operand`, paths);
  }
}
