// attack: 30,000 small rows (about 0.4 MB) in one value
// finding: 9.10 (the cycle check scanned a list that only grew: the cell timed out)
// expect: {"status":"completed","value":30000}
// expect-quickjs-emscripten: {"status":["completed","failed"],"value":30000,"code":["timeout"]}
// (the Bellard QuickJS interpreter in emscripten is several times slower: on a loaded machine the budget may end it)
const rows = [];
for (let i = 0; i < 30000; i++) rows.push({ i });
const saved = await results.save(rows);
const back = await results.load(saved.ref ?? saved);
return back.length;
