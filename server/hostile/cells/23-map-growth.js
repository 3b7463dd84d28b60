// attack: grow a Map entry by entry until memory runs out (its hash table grows in large single allocations)
// finding: 9 (a cell aborted the whole host process: V8's fatal out of memory on the Node executor)
// expect: {"status":"failed","code":["memory_limit_exceeded","timeout"]}
// (the heap watch measures from outside the worker: on a loaded machine the budget may end it first; either way
// the process lives and the cell ends with a result, which is the finding)
const grown = new Map();
for (let i = 0; ; i++) grown.set(i, i);
