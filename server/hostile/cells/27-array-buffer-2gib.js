// attack: new ArrayBuffer(2 ** 31): two GiB off the JavaScript heap, where a heap limit does not look
// finding: 9 (a cell aborted the whole host process: V8's fatal out of memory on the Node executor)
// expect: {"status":["completed","failed"],"code":["memory_limit_exceeded","timeout"]}
// (the allocator may commit it lazily and answer 2147483648, or refuse with a RangeError the cell catches)
try {
  return new ArrayBuffer(2 ** 31).byteLength;
} catch (err) {
  return err && err.name;
}
