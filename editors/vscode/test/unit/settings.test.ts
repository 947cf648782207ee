import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RESTART_KEYS, RESTRICTED_KEYS } from '../../src/common/constants';
import { buildSettings, initializationOptions, resolveDeep, resolveVariables, restartKeysAffected, SETTINGS, shouldNotify, toJsonSchema } from '../../src/common/settings';

const root = path.resolve(__dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const protocolPath = path.resolve(root, '../../docs/protocol.md');

/** Rows of the settings table in docs/protocol.md: key → {type, default, scope}. */
function protocolSettings(): Map<string, { type: string; def: unknown; scope: string }> {
  const text = fs.readFileSync(protocolPath, 'utf8');
  const section = text.slice(text.indexOf('## Settings'));
  const rows = new Map<string, { type: string; def: unknown; scope: string }>();
  for (const line of section.split('\n')) {
    const m = /^\| `([^`]+)` \| (.+?) \| (.+?) \| (\w+) \|$/.exec(line.trim());
    if (!m) continue;
    const defText = m[3]!.replace(/\s*\(.*\)\s*$/, '').trim();
    rows.set(m[1]!, { type: m[2]!.replace(/\\\|/g, '|'), def: JSON.parse(defText), scope: m[4]! });
  }
  return rows;
}

describe('settings table', () => {
  it('package.json contributes exactly the table (run `npm run gen-settings` after editing it)', () => {
    const expected: Record<string, unknown> = {};
    SETTINGS.forEach((s, i) => { expected[`benchwright.${s.key}`] = { ...toJsonSchema(s), order: i }; });
    expect(pkg.contributes.configuration.properties).toEqual(expected);
  });

  it('matches docs/protocol.md: keys, types, defaults and scopes', () => {
    const rows = protocolSettings();
    expect(rows.size).toBeGreaterThan(15);
    expect([...rows.keys()].sort()).toEqual(SETTINGS.map((s) => s.key).sort());
    for (const spec of SETTINGS) {
      const row = rows.get(spec.key)!;
      expect(row.scope, spec.key).toBe(spec.scope);
      expect(row.def, spec.key).toEqual(spec.default);
      if (spec.enum) {
        expect(row.type.split('|').map((t) => JSON.parse(t.trim())), spec.key).toEqual(spec.enum);
      } else {
        expect(row.type, spec.key).toBe(spec.type === 'array' ? 'string[]' : spec.type);
      }
    }
  });

  it('every setting has a description and enums have one description per value', () => {
    for (const spec of SETTINGS) {
      expect(spec.description.length, spec.key).toBeGreaterThan(10);
      if (spec.enum) expect(spec.enumDescriptions?.length, spec.key).toBe(spec.enum.length);
    }
  });

  it('restart keys are the ones docs/protocol.md names', () => {
    const text = fs.readFileSync(protocolPath, 'utf8');
    const sentence = text.split('\n').find((l) => l.startsWith('Changes to'))!;
    const named = [...sentence.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    expect([...RESTART_KEYS].sort()).toEqual(named.sort());
  });
});

describe('workspace trust', () => {
  const trust = pkg.capabilities?.untrustedWorkspaces;
  it('package.json declares limited support and restricts exactly RESTRICTED_KEYS', () => {
    expect(trust.supported).toBe('limited');
    expect(trust.description).toMatch(/only lints/);
    expect(trust.restrictedConfigurations).toEqual(RESTRICTED_KEYS.map((k) => `benchwright.${k}`));
  });
  it('restricts every setting that names a program, its arguments, the sandbox, a model file or an endpoint', () => {
    const keys = SETTINGS.map((s) => s.key);
    for (const key of RESTRICTED_KEYS) expect(keys, key).toContain(key);
    const risky = keys.filter((k) => /interpreter|Path$|Args$|sandbox|BaseUrl/.test(k));
    expect([...risky].sort()).toEqual([...RESTRICTED_KEYS].sort());
  });
  it('initializationOptions carry the settings and the trust flag', () => {
    const settings = buildSettings(() => undefined);
    expect(initializationOptions(settings, false)).toEqual({ benchwright: settings, workspaceTrusted: false });
    expect(initializationOptions(settings, true)).toEqual({ benchwright: settings, workspaceTrusted: true });
  });
});

describe('sim.sandbox', () => {
  it('is auto by default, machine scoped, and one of auto|require|off', () => {
    const spec = SETTINGS.find((s) => s.key === 'sim.sandbox')!;
    expect(spec).toMatchObject({ type: 'string', default: 'auto', scope: 'machine', enum: ['auto', 'require', 'off'] });
    expect((buildSettings(() => undefined).sim as Record<string, unknown>).sandbox).toBe('auto');
  });
});

describe('resolveVariables', () => {
  const ctx = { workspaceFolder: '/ws', userHome: '/home/u', env: { VENV: '/opt/venv' } };
  it.each([
    ['${workspaceFolder}/.venv/bin/python', '/ws/.venv/bin/python'],
    ['${userHome}/m.gguf', '/home/u/m.gguf'],
    ['~/m.gguf', '/home/u/m.gguf'],
    ['${env:VENV}/bin/python', '/opt/venv/bin/python'],
    ['${env:NOPE}x', 'x'],
    ['plain', 'plain'],
    ['', ''],
  ])('%s → %s', (input, expected) => {
    expect(resolveVariables(input, ctx)).toBe(expected);
  });
  it('keeps ${workspaceFolder} without a folder', () => {
    expect(resolveVariables('${workspaceFolder}/x', { userHome: '/h', env: {} })).toBe('${workspaceFolder}/x');
  });
  it('resolves deep into arrays and objects, leaving other values', () => {
    expect(resolveDeep({ a: ['${workspaceFolder}/inc'], b: { c: 3, d: true, e: '${userHome}' } }, ctx))
      .toEqual({ a: ['/ws/inc'], b: { c: 3, d: true, e: '/home/u' } });
  });
});

describe('buildSettings', () => {
  it('nests dotted keys and fills defaults', () => {
    const s = buildSettings((key) => (key === 'policy.backend' ? 'llama' : undefined));
    expect(s).toMatchObject({
      sim: { verilatorPath: '', verilatorArgs: [] },
      coverage: { metrics: ['line', 'branch', 'toggle', 'expr'], target: 90, hints: true },
      policy: { backend: 'llama', rounds: 3 },
      python: { interpreter: '' },
      simulateOnSave: true,
      showNotifications: 'onError',
    });
  });
  it('does not share default arrays between calls', () => {
    const a = buildSettings(() => undefined) as { coverage: { metrics: string[] } };
    a.coverage.metrics.push('x');
    const b = buildSettings(() => undefined) as { coverage: { metrics: string[] } };
    expect(b.coverage.metrics).toHaveLength(4);
  });
});

describe('restart and notifications', () => {
  it('lists the affected restart keys', () => {
    const changed = new Set(['benchwright.policy.backend', 'benchwright.coverage.target']);
    expect(restartKeysAffected((s) => changed.has(s))).toEqual(['policy.backend']);
    expect(restartKeysAffected(() => false)).toEqual([]);
  });
  it.each([
    ['off', 'error', false], ['onError', 'error', true], ['onError', 'warning', false],
    ['onWarning', 'warning', true], ['onWarning', 'info', false], ['always', 'info', true],
    [undefined, 'error', true], ['bogus', 'warning', false],
  ] as const)('showNotifications=%s %s → %s', (level, severity, expected) => {
    expect(shouldNotify(level, severity)).toBe(expected);
  });
});
