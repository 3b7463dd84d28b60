// attack: a value nested far deeper than any real result
// finding: 9.10 (depth is bounded with a clear error)
// expect: {"status":"failed","notCode":["internal_error"]}
let v = [];
for (let i = 0; i < 100000; i++) v = [v];
return v;
