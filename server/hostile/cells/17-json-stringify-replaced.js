// attack: replace JSON.stringify and JSON.parse, then call tools, store and return a value
// finding: 9.4 (primordials)
// expect: {"status":"completed","value":{"content":true,"stored":{"k":2}}}
const { stringify, parse } = JSON;
JSON.stringify = () => '{"forged":true}';
JSON.parse = () => ({ forged: true });
let file, stored;
try {
  file = await read({ path: 'README.md' });
  await store('json-replaced', { k: 2 });
  stored = await load('json-replaced');
} finally {
  JSON.stringify = stringify;
  JSON.parse = parse;
}
return { content: typeof file.content === 'string', stored };
