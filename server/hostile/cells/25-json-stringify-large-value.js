// attack: JSON.stringify two million small rows: one string of tens of MiB built in one call
// finding: 9 (a cell aborted the whole host process: V8's fatal out of memory on the Node executor)
// expect: {"status":["completed","failed"],"code":["memory_limit_exceeded","timeout"]}
// (the length depends on nothing but the rows, but whether it fits the budget depends on the executor)
const rows = [];
for (let i = 0; i < 2e6; i++) rows.push({ i, s: 'abcdefgh' });
return JSON.stringify(rows).length;
