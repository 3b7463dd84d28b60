// attack: allocate until memory runs out
// finding: sandbox walls (regression guard)
// expect: {"status":"failed","code":["memory_limit_exceeded","runtime_unavailable","timeout"]}
// (on Node the heap watch measures from outside the worker: under load the budget may end the cell first)
const hog = [];
for (;;) hog.push(new Array(1e6).fill(1.5));
