/**
 * The Benchwright protocol surface, named in one place (docs/protocol.md).
 * Python names live in server/protocol.py; keep the two in step.
 */

/** Server identity (also in package.json `serverInfo`). */
export const SERVER_NAME = 'benchwright';
export const SERVER_MODULE = 'server';
export const EXTENSION_ID = 'benchwright.benchwright';
export const CONFIG_SECTION = 'benchwright';

/** Custom notifications, server → client. */
export const Notifications = {
  COVERAGE: 'benchwright/coverage',
  STATUS: 'benchwright/status',
  AMBIGUOUS_TOP: 'benchwright/ambiguousTop',
} as const;

/** The setting (without the prefix) a top pick writes, in the workspace settings. */
export const TOP_SETTING_KEY = 'project.top';

/** Commands: the server's (workspace/executeCommand) and the client's own. */
export const Commands = {
  GENERATE_TESTBENCH: 'benchwright.generateTestbench',
  IMPROVE_COVERAGE: 'benchwright.improveCoverage',
  SHOW_REPORT: 'benchwright.showReport',
  RESTART_SERVER: 'benchwright.server.restart',
  DOCTOR: 'benchwright.doctor',
  /** The quick fix of a failed check: record the testbench's checks again (an edit to apply). */
  ACCEPT_BEHAVIOUR: 'benchwright.acceptNewBehaviour',
  /** Client only: reveal the output channel. */
  SHOW_LOG: 'benchwright.showLog',
} as const;

/** Commands executed on the server through workspace/executeCommand. */
export const SERVER_COMMANDS: readonly string[] = [
  Commands.GENERATE_TESTBENCH,
  Commands.IMPROVE_COVERAGE,
  Commands.SHOW_REPORT,
  Commands.DOCTOR,
  Commands.ACCEPT_BEHAVIOUR,
];

/** Settings (without the `benchwright.` prefix) whose change restarts the server. */
export const RESTART_KEYS: readonly string[] = [
  'python.interpreter',
  'policy.backend',
  'policy.modelPath',
];

/**
 * Settings (without the prefix) whose workspace values VS Code ignores in an untrusted workspace
 * (package.json `capabilities.untrustedWorkspaces.restrictedConfigurations`): they choose a program
 * to run, its arguments, the sandbox, a model file to load, or where the code is sent.
 */
export const RESTRICTED_KEYS: readonly string[] = [
  'python.interpreter',
  'sim.verilatorPath',
  'sim.verilatorArgs',
  'sim.sandbox',
  'policy.modelPath',
  'policy.openaiBaseUrl',
];

/** initializationOptions key beside the settings: false in an untrusted workspace (the server lints only). */
export const WORKSPACE_TRUSTED = 'workspaceTrusted';

/** Debounce for restarts caused by settings changes (template LS_SERVER_RESTART_DELAY). */
export const RESTART_DELAY_MS = 1000;

/** Languages the extension serves and contributes. */
export const LANGUAGES: readonly string[] = ['verilog', 'systemverilog'];

/** Scheme of the virtual coverage-report documents. */
export const REPORT_SCHEME = 'benchwright-report';

/** Environment variable naming a JSON-lines file the extension appends events to (e2e tests). */
export const MARKER_ENV = 'BENCHWRIGHT_E2E_MARKER';
