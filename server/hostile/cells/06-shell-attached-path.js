// attack: an attached short-option value names a file outside the workspace (`date -uf/etc/passwd`)
// finding: 9.5 (the argument check inspected `f/etc/passwd`; GNU date printed every line of the file in its errors)
// expect: {"status":"completed","value":{"refused":4,"leaked":false,"other":[]}}
// options: {"approve":true}
// A refusal counts only when it is the confinement's or the grammar's and names the argument: an approval
// denial, a missing command or a timeout is some other failure and lands in `other`.
const REFUSAL_CODES = ['outside_workspace', 'argument_not_allowed'];
const attempts = [
  ['date', ['-uf/etc/passwd']],
  ['date', ['--file=/etc/passwd']],
  ['date', ['--reference=/etc/passwd']],
  ['wc', ['--files0-from=/etc/passwd']],
];
let refused = 0;
let leaked = false;
const other = [];
for (const [command, args] of attempts) {
  try {
    const out = await exec({ command, args });
    if (/root:/.test(out.stdout + out.stderr)) leaked = true;
    other.push(`${command} ${args[0]}: ran (exit ${out.exitCode})`);
  } catch (err) {
    if (REFUSAL_CODES.includes(err.code) && String(err.message).includes(JSON.stringify(args[0]))) refused++;
    else other.push(`${command} ${args[0]}: ${err.code}: ${err.message}`);
  }
}
return { refused, leaked, other };
