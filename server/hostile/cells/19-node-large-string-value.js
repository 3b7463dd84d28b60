// attack: return a 24 MiB string, which the Node executor's worker once flattened and escaped past its heap limit
// finding: 9 (a cell aborted the whole host process: V8's fatal out of memory on the Node executor)
// expect: {"status":["completed","failed"],"code":["memory_limit_exceeded"]}
// expect-node: {"status":["completed","failed"],"code":["memory_limit_exceeded","timeout"]}
// (node: building and escaping 24 MiB can outlast the budget on a loaded machine (seen at load average 10); what matters is that the host survives)
// expect-quickjs-emscripten: {"status":["completed","failed"],"code":["memory_limit_exceeded","timeout"]}
// (quickjs-emscripten: flattening and escaping the 24 MiB rope is one native call the interrupt does not reach; the supervisor ends it)
return 'x'.repeat(24 * 1024 * 1024);
