// attack: a catastrophically backtracking regular expression for grep (69 s on one README line in V8)
// finding: 9.7 (grep ran on the Gateway's event loop: other clients waited seconds)
// expect: {"status":"completed","value":{"code":"timeout","saysWhatToDo":true}}
// Only the match deadline counts: a busy thread or a missing file is another error code.
try {
  await grep({ pattern: '^(\\w+\\s?)*$', path: 'README.md' });
  return { code: 'matched', saysWhatToDo: false };
} catch (err) {
  return { code: err.code, saysWhatToDo: String(err.message).includes('simplify the pattern') };
}
