// attack: after a tool call (the run holds a slot), toJSON makes the final value serialize to nothing
// finding: 9.2 (the settle was not valid JSON; the slot was never released; 64 of these locked out every user)
// expect: {"status":["completed","failed"],"notCode":["internal_error"]}
// repeat: 70
await sleep({ ms: 1 });
Object.prototype.toJSON = () => undefined;
return { a: 1 };
