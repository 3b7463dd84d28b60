// attack: double a string until it passes the engine's string length limit
// finding: 9.10 (an uncatchable internal_error instead of a RangeError or memory_limit_exceeded)
// expect: {"status":["completed","failed"],"value":"RangeError","code":["memory_limit_exceeded"]}
// expect-quickjs-emscripten: {"status":["completed","failed"],"value":"InternalError","code":["memory_limit_exceeded","timeout"]}
// (Bellard QuickJS throws a catchable InternalError "string too long")
let s = 'x';
try {
  for (;;) s += s;
} catch (err) {
  s = '';
  return err instanceof RangeError ? 'RangeError' : String(err && err.name);
}
