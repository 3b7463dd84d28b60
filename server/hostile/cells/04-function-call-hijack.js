// attack: replace Function.prototype.call/apply/bind to catch the controller's host primitive, then forge a settle
// finding: 9.4 (the prelude looked `.call` up at call time and handed the guest `__cm_sync`)
// expect: {"status":"completed","value":{"caught":0,"value":"honest"}}
const caught = [];
const { call, apply, bind } = Function.prototype;
function spy(original) {
  return function (...args) {
    if (args.some((a) => typeof a === 'string' && /^(send|settle|emit|overflow|cancel|api)$/.test(a))) caught.push(this);
    return Reflect.apply(original, this, args);
  };
}
Function.prototype.call = spy(call);
Function.prototype.apply = spy(apply);
Function.prototype.bind = spy(bind);
try {
  await read({ path: 'README.md' });
  await store('call-hijack', 1);
  await new Promise((resolve) => setTimeout(resolve, 1));
} finally {
  Function.prototype.call = call;
  Function.prototype.apply = apply;
  Function.prototype.bind = bind;
}
for (const primitive of caught) {
  try {
    Reflect.apply(primitive, undefined, ['settle', JSON.stringify({ ok: true, json: '"forged"' })]);
  } catch {}
}
return { caught: caught.length, value: 'honest' };
