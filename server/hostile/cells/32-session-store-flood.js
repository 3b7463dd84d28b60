// attack: store 64 KB values under new keys until something gives (2000 of them grew the session database by 130 MB per cell)
// finding: hostile-cell probe, the session store had no total limit; every later load replayed it past its budget
// expect: {"status":"completed","value":{"stored":129,"code":"capacity_exceeded","kept":true}}
const value = 'x'.repeat(65000);
let i = 0;
try {
  for (; i < 2000; i++) await store('flood' + i, value);
} catch (e) {
  // the refused write is catchable, and what was stored before it is still there
  return { stored: i, code: e.code, kept: (await load('flood0')) === value };
}
return { stored: i, code: 'none', kept: false };
