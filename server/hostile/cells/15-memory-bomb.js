// attack: allocate until memory runs out
// finding: sandbox walls (regression guard)
// expect: {"status":"failed","code":["memory_limit_exceeded","runtime_unavailable"]}
const hog = [];
for (;;) hog.push(new Array(1e6).fill(1.5));
