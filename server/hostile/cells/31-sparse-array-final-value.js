// attack: return a sparse array of 2^32-1 holes: its JSON is billions of "null"s, past every engine's string limit
// finding: hostile-cell probe (on Node it failed as "RangeError: Invalid string length" with no hint what to do)
// expect: {"status":"failed","code":["memory_limit_exceeded","timeout"]}
// expect-node: {"status":"failed","code":"invalid_input","error":"the final value is too large to serialize (Invalid string length); pass a smaller value, or results.save it in parts"}
// (node: V8 refuses the string at once and the guest controller says what to do; QuickJS fills memory first)
const a = [];
a.length = 2 ** 32 - 1;
return a;
