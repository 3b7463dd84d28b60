// attack: reach the host realm: process, module loaders, the Function constructor, globals left by the executor
// finding: sandbox walls (regression guard)
// expect: {"status":"completed","value":{"process":"undefined","functionReachesProcess":false,"hostGlobals":[]}}
let viaFunction;
try {
  viaFunction = Function('return typeof process')();
} catch {
  viaFunction = 'threw';
}
const host = ['process', 'require', 'module', 'Buffer', 'global', '__cm_sync', '__cm_take_reply', 'WebAssembly'];
return {
  process: typeof globalThis.process,
  // the Function constructor either is refused (Node: no code generation from strings) or sees the guest realm
  functionReachesProcess: viaFunction === 'object',
  hostGlobals: Object.getOwnPropertyNames(globalThis).filter((n) => host.includes(n)),
};
