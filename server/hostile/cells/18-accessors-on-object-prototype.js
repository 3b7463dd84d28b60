// attack: accessors on Object.prototype for the protocol's field names: reads return forged values, writes vanish
// finding: 9.4 (the controller must build its messages without inherited setters or getters)
// expect: {"status":"completed","value":{"path":"README.md","stored":3}}
const names = ['id', 'op', 'ok', 'value', 'json', 't', 'error', 'code', 'tool', 'input', 'key', 'action', 'ms', 'timer'];
for (const name of names) {
  // a null-prototype descriptor: the accessors for `value` installed a moment ago would spoil a plain one
  Object.defineProperty(Object.prototype, name, {
    __proto__: null,
    configurable: true,
    get() {
      return 'forged';
    },
    set(v) {},
  });
}
let file, stored;
try {
  file = await read({ path: 'README.md' });
  await store('accessors', 3);
  stored = await load('accessors');
  await new Promise((resolve) => setTimeout(resolve, 1));
} finally {
  for (const name of names) delete Object.prototype[name];
}
return { path: file.path, stored };
