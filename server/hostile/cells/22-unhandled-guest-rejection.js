// attack: reject promises the cell never handles, at once and from a timer callback
// finding: 9 (on Node the guest's own unhandled rejection killed the worker: internal_error)
// expect: {"status":"completed","value":2}
Promise.reject(new Error('mine'));
setTimeout(() => {
  Promise.reject(new Error('in a timer'));
}, 1);
await new Promise((done) => setTimeout(done, 20));
return 2;
