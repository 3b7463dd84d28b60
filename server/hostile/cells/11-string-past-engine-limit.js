// attack: double a string until it passes the engine's string length limit
// finding: 9.10 (an uncatchable internal_error instead of a RangeError or memory_limit_exceeded)
// expect: {"status":["completed","failed"],"value":"RangeError","code":["memory_limit_exceeded"]}
// (Bellard QuickJS's catchable InternalError "string too long" is a RangeError by name there too: the parity shim)
let s = 'x';
try {
  for (;;) s += s;
} catch (err) {
  s = '';
  return err instanceof RangeError ? 'RangeError' : String(err && err.name);
}
