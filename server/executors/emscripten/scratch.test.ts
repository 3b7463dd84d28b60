import { it } from 'vitest';
import { testGateway } from '../../testing.ts';
import { testCodeModeOptions } from '../../tools/testing.ts';
import { EmscriptenExecutor } from './executor.ts';

it('scratch', async () => {
  const ex = new EmscriptenExecutor();
  const gw = await testGateway({ executor: ex, codeMode: testCodeModeOptions({ executor: 'quickjs-emscripten', memoryLimitBytes: 32 * 1024 * 1024, timeoutMs: 1500 }) });
  for (const code of [
    'Promise.reject(new Error("mine"));\nreturn 1',
    'return 2',
    'while (true) {}',
    'const a = [];\nfor (;;) a.push("x".repeat(1 << 16) + a.length)',
    'return 3',
    'function f(n) { return f(n + 1) + 1 }\ntry { f(0) } catch (e) { return String(e) }',
  ]) {
    const t = gw.prepareTurn({});
    const r = await gw.exec(t.agentRunId, { code });
    console.log(JSON.stringify(code), JSON.stringify(r).slice(0, 400), ex.leaks(), JSON.stringify(ex.poolStats()));
  }
  await gw.close();
  await ex.close();
}, 60000);
