// The shell argument grammar as a pure function: getopt_long spellings, and the refusals that must never reach a spawn.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SHELL_ALLOW } from './load.ts';
import { classifyArgs, COMMAND_GRAMMARS, hasShellGrammar } from './shell-grammar.ts';

const paths = (command: string, args: string[]) => {
  const r = classifyArgs(command, args);
  if (!r.ok) throw new Error(`refused: ${r.refusal.reason}`);
  return r.paths.map((p) => p.path);
};
const refusal = (command: string, args: string[]) => {
  const r = classifyArgs(command, args);
  if (r.ok) throw new Error(`expected a refusal of ${command} ${JSON.stringify(args)}`);
  return r.refusal;
};

describe('classifyArgs', () => {
  it('on attached, clustered, separate and = values: returns every path the command would open', () => {
    expect(paths('date', ['-uf/etc/passwd'])).toEqual(['/etc/passwd']);
    expect(paths('date', ['-u', '-f', 'a', '--file=b', '--file', 'c', '-rd', '--reference=e', '+%s'])).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(paths('cat', ['-n', 'a', '--', '-b', 'c'])).toEqual(['a', '-b', 'c']);
    expect(paths('ls', ['a', '-l', 'b'])).toEqual(['a', 'b']);
    expect(paths('head', ['-n', '-3', 'a', '-c5', 'b'])).toEqual(['a', 'b']);
  });

  it('on date spellings that set the clock: refuses them without running anything', () => {
    for (const args of [['-s', '2020-01-01'], ['--set=2020-01-01'], ['--set', 'now'], ['-us2020-01-01'], ['010100002020'], ['-u', '--', '0101']]) {
      expect(refusal('date', args).code).toBe('argument_not_allowed');
    }
  });

  it('on an optional value: only an attached one is taken, the next word stays an operand', () => {
    expect(paths('date', ['-I', '+%s'])).toEqual([]);
    expect(refusal('date', ['-I', 'README.md']).reason).toMatch(/\+FORMAT/);
    expect(paths('ls', ['--color', 'notes'])).toEqual(['notes']);
  });

  it('on a refusal: names the word and what the command allows', () => {
    const r = refusal('wc', ['-l', '--files0-from=list']);
    expect(r).toMatchObject({ arg: '--files0-from=list', code: 'argument_not_allowed' });
    expect(r.reason).toContain('wc allows: --help, --version, -c/--bytes');
    expect(refusal('cat', ['-nx']).reason).toContain('option -x is not allowed');
  });

  it('on a command without a grammar, or a name from Object.prototype: no grammar, and classifying it is a host bug (throws)', () => {
    expect(hasShellGrammar('rm')).toBe(false);
    expect(hasShellGrammar('constructor')).toBe(false);
    expect(() => classifyArgs('rm', ['-rf', 'x'])).toThrow(/no argument grammar/);
  });

  it('on every default allow-list command: a grammar exists', () => {
    for (const command of DEFAULT_SHELL_ALLOW) expect(Object.hasOwn(COMMAND_GRAMMARS, command)).toBe(true);
  });
});
