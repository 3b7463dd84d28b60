// attack: Object.prototype.toJSON returns null before a tool call, so a naive controller sends a `null` bridge request
// finding: 9.1 (crashed the CLI; the server survived only through Next's handler)
// expect: {"status":"completed","value":{"path":"README.md"}}
Object.prototype.toJSON = () => null;
const file = await read({ path: 'README.md' });
delete Object.prototype.toJSON;
return { path: file.path };
