// attack: allocate until memory runs out
// finding: sandbox walls (regression guard)
// expect: {"status":"failed","code":["memory_limit_exceeded"]}
// (every executor: quickjs-wasi's allocator, Node's heap watch, quickjs-emscripten's WASM memory growth rule)
const hog = [];
for (;;) hog.push(new Array(1e6).fill(1.5));
