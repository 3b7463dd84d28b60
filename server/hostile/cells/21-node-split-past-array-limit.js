// attack: split a 512 MiB string into characters, more elements than V8's largest array (a fatal "invalid size" abort in V8)
// finding: 9 (a cell aborted the whole host process on the Node executor)
// expect: {"status":["completed","failed"],"value":"RangeError","code":["memory_limit_exceeded"]}
// (Bellard QuickJS throws a catchable InternalError "out of memory": a RangeError by name there too, the parity shim)
try {
  return 'x'.repeat(2 ** 29 - 24).split('').length;
} catch (err) {
  return err && err.name;
}
