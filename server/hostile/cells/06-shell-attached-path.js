// attack: an attached short-option value names a file outside the workspace (`date -uf/etc/passwd`)
// finding: 9.5 (the argument check inspected `f/etc/passwd`; GNU date printed every line of the file in its errors)
// expect: {"status":"completed","value":{"refused":4,"leaked":false}}
// options: {"approve":true}
const attempts = [
  ['date', ['-uf/etc/passwd']],
  ['date', ['--file=/etc/passwd']],
  ['date', ['--reference=/etc/passwd']],
  ['wc', ['--files0-from=/etc/passwd']],
];
let refused = 0;
let leaked = false;
for (const [command, args] of attempts) {
  try {
    const out = await exec({ command, args });
    if (/root:/.test(out.stdout + out.stderr)) leaked = true;
  } catch (err) {
    refused++;
  }
}
return { refused, leaked };
