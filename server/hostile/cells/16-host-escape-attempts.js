// attack: reach the host realm: process, require, the Function constructor, globals left by the executor
// finding: sandbox walls (regression guard)
// expect: {"status":"completed","value":{"process":"undefined","require":"undefined","viaFunction":"undefined","hostPrimitive":[]}}
let viaFunction;
try {
  viaFunction = Function('return typeof process')();
} catch {
  viaFunction = 'threw';
}
return {
  process: typeof globalThis.process,
  require: typeof globalThis.require,
  viaFunction,
  hostPrimitive: Object.getOwnPropertyNames(globalThis).filter((n) => n === '__cm_sync'),
};
