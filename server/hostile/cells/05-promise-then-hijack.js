// attack: replace Promise.prototype.then and Array.prototype.push while tool calls are in flight
// finding: 9.4 (primordials: the controller must not reach builtins through guest-writable lookups)
// expect: {"status":"completed","value":{"files":2}}
const then = Promise.prototype.then;
const push = Array.prototype.push;
let calls = 0;
Array.prototype.push = function () {
  calls++;
  return Reflect.apply(push, this, arguments);
};
const pending = Promise.all([read({ path: 'README.md' }), read({ path: 'notes/todo.md' })]);
Promise.prototype.then = function (ok, fail) {
  return Reflect.apply(then, this, [ok, fail]);
};
const files = await pending;
Promise.prototype.then = then;
Array.prototype.push = push;
return { files: files.length };
