// Tests for the tools.codeMode schema: defaults, shorthands, clamps, and errors that name their field.
import { describe, expect, it } from 'vitest';
import { configError } from './testing.ts';
import {
  CODE_MODE_LIMIT_BOUNDS,
  CODE_MODE_LIMIT_FIELDS,
  DEFAULT_CODE_MODE_OPTIONS,
  mergeCodeModeOptions,
  resolveCodeModeOptions,
  resolveCodeModeOverrides,
} from './schema.ts';


describe('resolveCodeModeOptions', () => {
  it('on no value: is disabled with every default', () => {
    expect(resolveCodeModeOptions(undefined, 'tools.codeMode')).toEqual({ ...DEFAULT_CODE_MODE_OPTIONS, enabled: false });
  });

  it('on true: enables code mode with the defaults', () => {
    const options = resolveCodeModeOptions(true, 'tools.codeMode');
    expect(options.enabled).toBe(true);
    expect({ ...options, enabled: DEFAULT_CODE_MODE_OPTIONS.enabled }).toEqual(DEFAULT_CODE_MODE_OPTIONS);
  });

  it('on false: disables code mode', () => {
    expect(resolveCodeModeOptions(false, 'tools.codeMode').enabled).toBe(false);
  });

  it('on "auto": keeps "auto" for activation to decide per model', () => {
    expect(resolveCodeModeOptions('auto', 'tools.codeMode').enabled).toBe('auto');
  });

  it('on an object without enabled: stays disabled but keeps its other fields', () => {
    const options = resolveCodeModeOptions({ executor: 'quickjs', timeoutMs: 2500 }, 'tools.codeMode');
    expect(options.enabled).toBe(false);
    expect(options.executor).toBe('quickjs');
    expect(options.timeoutMs).toBe(2500);
  });

  it('on an object with enabled true: enables and fills the unset fields from the defaults', () => {
    const options = resolveCodeModeOptions({ enabled: true, maxPendingToolCalls: 4 }, 'tools.codeMode');
    expect(options.enabled).toBe(true);
    expect(options.maxPendingToolCalls).toBe(4);
    expect(options.memoryLimitBytes).toBe(DEFAULT_CODE_MODE_OPTIONS.memoryLimitBytes);
  });

  it('defaults are the ones the design table lists, inside their own bounds', () => {
    expect(DEFAULT_CODE_MODE_OPTIONS.executor).toBe('node');
    expect(DEFAULT_CODE_MODE_OPTIONS.timeoutMs).toBe(10_000);
    expect(DEFAULT_CODE_MODE_OPTIONS.memoryLimitBytes).toBe(64 * 1024 * 1024);
    expect(DEFAULT_CODE_MODE_OPTIONS.maxOutputBytes).toBe(64 * 1024);
    expect(DEFAULT_CODE_MODE_OPTIONS.maxSnapshotBytes).toBe(10 * 1024 * 1024);
    expect(DEFAULT_CODE_MODE_OPTIONS.maxPendingToolCalls).toBe(16);
    expect(DEFAULT_CODE_MODE_OPTIONS.snapshotTtlSeconds).toBe(900);
    expect(DEFAULT_CODE_MODE_OPTIONS.searchDefaultLimit).toBe(8);
    expect(DEFAULT_CODE_MODE_OPTIONS.maxSearchLimit).toBe(50);
    for (const field of CODE_MODE_LIMIT_FIELDS) {
      const { min, max } = CODE_MODE_LIMIT_BOUNDS[field];
      expect(DEFAULT_CODE_MODE_OPTIONS[field], field).toBeGreaterThanOrEqual(min);
      expect(DEFAULT_CODE_MODE_OPTIONS[field], field).toBeLessThanOrEqual(max);
    }
  });
});

describe('clamps', () => {
  it.each(CODE_MODE_LIMIT_FIELDS)('on %s below its minimum: clamps up to the minimum', (field) => {
    const { min } = CODE_MODE_LIMIT_BOUNDS[field];
    expect(resolveCodeModeOptions({ [field]: min - 1 }, 'tools.codeMode')[field]).toBe(min);
    expect(resolveCodeModeOptions({ [field]: -5 }, 'tools.codeMode')[field]).toBe(min);
  });

  it.each(CODE_MODE_LIMIT_FIELDS)('on %s above its maximum: clamps down to the maximum', (field) => {
    const { max } = CODE_MODE_LIMIT_BOUNDS[field];
    // maxSearchLimit is raised too so searchDefaultLimit is not also lowered to it.
    const extra = field === 'searchDefaultLimit' ? { maxSearchLimit: max } : {};
    expect(resolveCodeModeOptions({ ...extra, [field]: max + 1 }, 'tools.codeMode')[field]).toBe(max);
    expect(resolveCodeModeOptions({ ...extra, [field]: Number.MAX_SAFE_INTEGER * 4 }, 'tools.codeMode')[field]).toBe(max);
  });

  it('on the documented bounds: timeoutMs 100..60000, memory 1 MiB..1 GiB, output 1 KiB..10 MiB, snapshot 1 KiB..256 MiB, pending 1..128, ttl 1..86400', () => {
    const low = resolveCodeModeOptions(
      { timeoutMs: 1, memoryLimitBytes: 1, maxOutputBytes: 1, maxSnapshotBytes: 1, maxPendingToolCalls: 0, snapshotTtlSeconds: 0 },
      'tools.codeMode',
    );
    expect([low.timeoutMs, low.memoryLimitBytes, low.maxOutputBytes, low.maxSnapshotBytes, low.maxPendingToolCalls, low.snapshotTtlSeconds]).toEqual([
      100,
      1024 * 1024,
      1024,
      1024,
      1,
      1,
    ]);
    const high = resolveCodeModeOptions(
      { timeoutMs: 1e9, memoryLimitBytes: 1e12, maxOutputBytes: 1e12, maxSnapshotBytes: 1e12, maxPendingToolCalls: 1e6, snapshotTtlSeconds: 1e9 },
      'tools.codeMode',
    );
    expect([high.timeoutMs, high.memoryLimitBytes, high.maxOutputBytes, high.maxSnapshotBytes, high.maxPendingToolCalls, high.snapshotTtlSeconds]).toEqual([
      60_000,
      1024 * 1024 * 1024,
      10 * 1024 * 1024,
      256 * 1024 * 1024,
      128,
      86_400,
    ]);
  });

  it('on an in-range value: keeps it exactly', () => {
    expect(resolveCodeModeOptions({ timeoutMs: 12_345 }, 'tools.codeMode').timeoutMs).toBe(12_345);
  });

  it('on a clamped value: reports a warning naming the field and the value used', () => {
    const warnings: string[] = [];
    resolveCodeModeOptions({ enabled: true, timeoutMs: 120_000 }, 'tools.codeMode', warnings);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('tools.codeMode.timeoutMs');
    expect(warnings[0]).toContain(String(CODE_MODE_LIMIT_BOUNDS.timeoutMs.max));
  });

  it('on searchDefaultLimit above maxSearchLimit: lowers the default to the maximum', () => {
    const options = resolveCodeModeOptions({ searchDefaultLimit: 30, maxSearchLimit: 10 }, 'tools.codeMode');
    expect(options.searchDefaultLimit).toBe(10);
    expect(options.maxSearchLimit).toBe(10);
  });
});

describe('invalid tools.codeMode values', () => {
  it('on a string timeout: names the field, quotes the value and says what to write', () => {
    const error = configError(() => resolveCodeModeOptions({ timeoutMs: '10s' }, 'tools.codeMode'));
    expect(error.path).toBe('tools.codeMode.timeoutMs');
    expect(error.message).toMatch(/^tools\.codeMode\.timeoutMs: expected an integer, got "10s"; write a whole number of milliseconds/);
  });

  it.each(CODE_MODE_LIMIT_FIELDS)('on a non-integer %s: is an error naming the field', (field) => {
    const error = configError(() => resolveCodeModeOptions({ [field]: 2.5 }, 'tools.codeMode'));
    expect(error.path).toBe(`tools.codeMode.${field}`);
    expect(error.reason).toContain('expected an integer, got 2.5');
  });

  it('on null or a boolean limit: is an error, never a default', () => {
    expect(configError(() => resolveCodeModeOptions({ maxOutputBytes: null }, 'tools.codeMode')).reason).toContain('got null');
    expect(configError(() => resolveCodeModeOptions({ maxOutputBytes: true }, 'tools.codeMode')).reason).toContain('got true');
  });

  it('on an unknown executor: names executor and lists the ones that exist', () => {
    const error = configError(() => resolveCodeModeOptions({ enabled: true, executor: 'deno' }, 'tools.codeMode'));
    expect(error.path).toBe('tools.codeMode.executor');
    expect(error.reason).toContain('"deno"');
    expect(error.reason).toContain('"node"');
    expect(error.reason).toContain('"quickjs"');
    expect(error.reason).toContain('"quickjs-emscripten"');
  });

  it('on executor "quickjs-emscripten": accepted', () => {
    expect(resolveCodeModeOptions({ enabled: true, executor: 'quickjs-emscripten' }, 'tools.codeMode').executor).toBe('quickjs-emscripten');
  });

  it('on enabled "yes": names enabled and lists true, false and "auto"', () => {
    const error = configError(() => resolveCodeModeOptions({ enabled: 'yes' }, 'tools.codeMode'));
    expect(error.path).toBe('tools.codeMode.enabled');
    expect(error.reason).toContain('expected true, false or "auto", got "yes"');
  });

  it('on a misspelled field: is an error that suggests the right spelling', () => {
    const error = configError(() => resolveCodeModeOptions({ enabled: true, timeOutMs: 5000 }, 'tools.codeMode'));
    expect(error.path).toBe('tools.codeMode.timeOutMs');
    expect(error.reason).toContain('did you mean "timeoutMs"');
  });

  it('on an unrelated unknown field: lists the known fields', () => {
    const error = configError(() => resolveCodeModeOptions({ colour: 'red' }, 'tools.codeMode'));
    expect(error.path).toBe('tools.codeMode.colour');
    expect(error.reason).toContain('maxSnapshotBytes');
  });

  it('on a number or a list: names the whole value and lists the accepted shapes', () => {
    for (const value of [1, [true], 'on']) {
      const error = configError(() => resolveCodeModeOptions(value, 'tools.codeMode'));
      expect(error.path).toBe('tools.codeMode');
      expect(error.reason).toContain('expected true, false, "auto" or an object');
    }
  });

  it('on several bad fields: the first names its field and the rest are listed too', () => {
    const error = configError(() => resolveCodeModeOptions({ timeoutMs: 'x', executor: 'y' }, 'tools.codeMode'));
    expect(['tools.codeMode.timeoutMs', 'tools.codeMode.executor']).toContain(error.path);
    expect(error.message).toContain('tools.codeMode.timeoutMs: expected an integer');
    expect(error.message).toContain('tools.codeMode.executor: unknown executor');
  });

  it('on a nested path prefix: errors carry the full path', () => {
    const error = configError(() => resolveCodeModeOverrides({ timeoutMs: 'x' }, 'agents.list[2].tools.codeMode'));
    expect(error.path).toBe('agents.list[2].tools.codeMode.timeoutMs');
  });
});

describe('resolveCodeModeOverrides', () => {
  it('on an object without enabled: leaves enabled unset so lower levels decide', () => {
    const overrides = resolveCodeModeOverrides({ timeoutMs: 3000 }, 'agents.list[0].tools.codeMode');
    expect('enabled' in overrides).toBe(false);
    expect(overrides.timeoutMs).toBe(3000);
  });

  it('on shorthands: sets only enabled', () => {
    expect(resolveCodeModeOverrides(true, 'x')).toEqual({ enabled: true });
    expect(resolveCodeModeOverrides(false, 'x')).toEqual({ enabled: false });
    expect(resolveCodeModeOverrides('auto', 'x')).toEqual({ enabled: 'auto' });
  });

  it('on out-of-range agent limits: clamps them like the global ones', () => {
    const { max } = CODE_MODE_LIMIT_BOUNDS.maxPendingToolCalls;
    expect(resolveCodeModeOverrides({ maxPendingToolCalls: max * 10 }, 'x').maxPendingToolCalls).toBe(max);
  });
});

describe('mergeCodeModeOptions', () => {
  it('on overrides: replaces only the fields they set', () => {
    const base = resolveCodeModeOptions({ enabled: true, timeoutMs: 4000, executor: 'quickjs' }, 'tools.codeMode');
    const merged = mergeCodeModeOptions(base, { timeoutMs: 2000 });
    expect(merged).toEqual({ ...base, timeoutMs: 2000 });
  });

  it('on an agent lowering maxSearchLimit: lowers the inherited default search limit with it', () => {
    const base = resolveCodeModeOptions(true, 'tools.codeMode');
    const merged = mergeCodeModeOptions(base, { maxSearchLimit: 3 });
    expect(merged.searchDefaultLimit).toBe(3);
  });
});
