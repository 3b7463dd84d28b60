// attack: the same object twice in one value (not a cycle)
// finding: 9.10 (`[a, a]` was refused as circular)
// expect: {"status":"completed","value":[{"x":1},{"x":1},{"y":{"x":1},"z":{"x":1}}]}
const a = { x: 1 };
return [a, a, { y: a, z: a }];
