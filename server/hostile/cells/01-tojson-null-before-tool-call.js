// attack: Object.prototype.toJSON returns null before a tool call, so a naive controller sends a `null` bridge request
// finding: 9.1 (crashed the CLI; the server survived only through Next's handler)
// expect: {"status":"failed","error":"read: \"input\" must be one object, got null"}
// (honest: in JSON semantics the guest's toJSON makes its own input null, and the tool refuses it as a catchable error)
Object.prototype.toJSON = () => null;
const file = await read({ path: 'README.md' });
delete Object.prototype.toJSON;
return { path: file.path };
