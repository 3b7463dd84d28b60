// probe: a normal cell after each attack, in the same session: a tool call, a timer and the session store must work
const file = await read({ path: 'README.md' });
await new Promise((resolve) => setTimeout(resolve, 1));
await store('probe', { ok: true });
return { read: file.path, stored: await load('probe') };
