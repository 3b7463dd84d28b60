// attack: fill the in-flight cap (16 by default) with timers, fill the 128-request queue with timers, clear them from the last, queue more
// finding: hostile-cell probe, cleared queued timers (their holes still counted against the queue: "too many concurrent requests")
// expect: {"status":"completed","value":{"fired":128}}
const held = [];
for (let i = 0; i < 16; i++) held.push(new Promise((done) => setTimeout(done, 1)));
const ids = [];
for (let i = 0; i < 128; i++) ids.push(setTimeout(() => {}, 1));
for (let i = ids.length - 1; i >= 0; i--) clearTimeout(ids[i]);
const later = [];
for (let i = 0; i < 128; i++) later.push(new Promise((done) => setTimeout(done, 1)));
await Promise.all(held);
return { fired: (await Promise.all(later)).length };
