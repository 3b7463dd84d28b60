// attack: new Array(1e8): a length of a hundred million with no elements
// finding: 9 (a cell aborted the whole host process: V8's fatal out of memory on the Node executor)
// expect: {"status":["completed","failed"],"value":100000000,"code":["memory_limit_exceeded","timeout"]}
// (a sparse array costs nothing in V8; an engine that allocates it fails with memory_limit_exceeded)
return new Array(1e8).length;
