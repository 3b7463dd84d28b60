// attack: grow one array push by push: its backing store grows in single allocations larger than V8's out-of-memory grace
// finding: 9 (a cell aborted the whole host process: V8's fatal out of memory on the Node executor)
// expect: {"status":"failed","code":["memory_limit_exceeded","timeout"]}
// (one small element a push fills memory slowly: on a loaded machine the budget may end it first; either way the
// process lives and the cell ends with a result, which is the finding)
const grown = [];
for (;;) grown.push(1);
