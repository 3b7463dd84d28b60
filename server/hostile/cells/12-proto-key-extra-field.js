// attack: an own `__proto__` key as an extra field to a tool whose schema has additionalProperties: false
// finding: 9.10 (the extra field passed validation)
// expect: {"status":"completed","value":{"refused":"invalid_input"}}
const input = JSON.parse('{"path":"README.md","__proto__":{"polluted":true}}');
try {
  await read(input);
  return { refused: false };
} catch (err) {
  return { refused: err.code };
}
