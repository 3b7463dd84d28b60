// attack: split a 24 MiB string into characters: 24 million one-character strings in one array
// finding: 9 (a cell aborted the whole host process: V8's fatal out of memory on the Node executor)
// expect: {"status":["completed","failed"],"value":25165824,"code":["memory_limit_exceeded","timeout"]}
// (fits the Node executor's budget on some machines and not on others; QuickJS runs out of memory)
return 'x'.repeat(24 * 1024 * 1024).split('').length;
