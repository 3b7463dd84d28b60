// attack: a catastrophically backtracking regular expression for grep (69 s on one README line in V8)
// finding: 9.7 (grep ran on the Gateway's event loop: other clients waited seconds)
// expect: {"status":"completed","value":{"refused":true}}
try {
  await grep({ pattern: '^(\\w+\\s?)*$', path: 'README.md' });
  return { refused: false };
} catch (err) {
  return { refused: true };
}
