// attack: pass a store key, result ref and search query past the bridge's length limits (1024 / 65536 characters)
// finding: hostile-cell probe, bridge length limits (they failed the whole cell as a malformed message)
// expect: {"status":"completed","value":{"store":"invalid_input","load":"invalid_input","resultsLoad":"invalid_input","search":"invalid_input","limitNamed":true}}
const out = { store: null, load: null, resultsLoad: null, search: null, limitNamed: true };
const attempts = [
  ['store', () => store('k'.repeat(1025), 1), '1024-character limit'],
  ['load', () => load('k'.repeat(1025)), '1024-character limit'],
  ['resultsLoad', () => results.load('r'.repeat(1025)), '1024-character limit'],
  ['search', () => catalog.search('weather '.repeat(9000)), '65536-character limit'],
];
for (const [field, attempt, limit] of attempts) {
  try {
    await attempt();
    out[field] = 'sent';
  } catch (e) {
    out[field] = e.code;
    if (!String(e.message).includes(limit)) out.limitNamed = false;
  }
}
return out;
