// attack: return a 24 MiB string, which the Node executor's worker once flattened and escaped past its heap limit
// finding: 9 (a cell aborted the whole host process: V8's fatal out of memory on the Node executor)
// expect: {"status":["completed","failed"],"code":["memory_limit_exceeded"]}
// expect-quickjs-emscripten: {"status":["completed","failed"],"code":["memory_limit_exceeded","timeout"]}
// (quickjs-emscripten: flattening and escaping the 24 MiB rope is one native call the interrupt does not reach; the supervisor ends it)
return 'x'.repeat(24 * 1024 * 1024);
