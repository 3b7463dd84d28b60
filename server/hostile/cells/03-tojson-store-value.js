// attack: toJSON turns a store() value's JSON into an object the host measured as zero bytes and committed
// finding: 9.3 (every later replay of the session failed: "the transcript is damaged", across restarts)
// expect: {"status":["completed","failed"],"notCode":["internal_error"]}
Object.prototype.toJSON = function () {
  return { big: 'x'.repeat(1000) };
};
try {
  await store('hostile-key', { a: 1 });
} finally {
  delete Object.prototype.toJSON;
}
return await load('hostile-key');
