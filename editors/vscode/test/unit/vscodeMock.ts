/** A small stand-in for the `vscode` module (it does not exist outside VS Code). */
import { vi } from 'vitest';

export class Position { constructor(readonly line: number, readonly character: number) {} }
export class Range {
  constructor(readonly startLine: number, readonly startCharacter: number, readonly endLine: number, readonly endCharacter: number) {}
}
export class TestCoverageCount { constructor(readonly covered: number, readonly total: number) {} }
export class BranchCoverage { constructor(readonly executed: number | boolean, readonly location?: unknown, readonly label?: string) {} }
export class StatementCoverage { constructor(readonly executed: number | boolean, readonly location: unknown, readonly branches: BranchCoverage[] = []) {} }
export class DeclarationCoverage { constructor(readonly name: string, readonly executed: number | boolean, readonly location: unknown) {} }
export class FileCoverage {
  constructor(readonly uri: unknown, readonly statementCoverage: TestCoverageCount, readonly branchCoverage?: TestCoverageCount, readonly declarationCoverage?: TestCoverageCount) {}
}
export class TestMessage { constructor(readonly message: string) {} }
export class TestRunRequest { constructor(readonly include?: unknown[], readonly exclude?: unknown[], readonly profile?: unknown) {} }
export class ThemeColor { constructor(readonly id: string) {} }
export class EventEmitter { event = vi.fn(); fire = vi.fn(); dispose = vi.fn(); }
export const TestRunProfileKind = { Run: 1, Debug: 2, Coverage: 3 } as const;
export const StatusBarAlignment = { Left: 1, Right: 2 } as const;
export const ConfigurationTarget = { Global: 1, Workspace: 2, WorkspaceFolder: 3 } as const;
export const LogLevel = { Off: 0, Trace: 1, Debug: 2, Info: 3, Warning: 4, Error: 5 } as const;
export const DiagnosticSeverity = { Error: 0, Warning: 1, Information: 2, Hint: 3 } as const;

export const Uri = {
  parse: (value: string) => ({ scheme: value.split(':')[0], toString: () => value, fsPath: value.replace(/^file:\/\//, '') }),
  file: (p: string) => ({ scheme: 'file', toString: () => `file://${p}`, fsPath: p }),
};

export class WorkspaceEdit {
  readonly ops: Array<{ op: string; args: unknown[] }> = [];
  replace(...args: unknown[]): void { this.ops.push({ op: 'replace', args }); }
  createFile(...args: unknown[]): void { this.ops.push({ op: 'createFile', args }); }
  renameFile(...args: unknown[]): void { this.ops.push({ op: 'renameFile', args }); }
  deleteFile(...args: unknown[]): void { this.ops.push({ op: 'deleteFile', args }); }
}

/** Test controller that records what runs receive. */
export function makeController() {
  const items = new Map<string, any>();
  const runs: any[] = [];
  const controller = {
    items: { get: (id: string) => items.get(id), add: (i: any) => items.set(i.id, i), forEach: (f: (i: any) => void) => items.forEach(f) },
    createTestItem: (id: string, label: string, uri?: unknown) => ({ id, label, uri }),
    createRunProfile: vi.fn((label: string, kind: number, handler: unknown, isDefault: boolean) => ({ label, kind, handler, isDefault })),
    createTestRun: vi.fn((request: unknown, name: string, persist: boolean) => {
      const run = { request, name, persist, coverage: [] as any[], events: [] as string[],
        started: vi.fn(() => run.events.push('started')), passed: vi.fn(() => run.events.push('passed')),
        failed: vi.fn(() => run.events.push('failed')), errored: vi.fn(() => run.events.push('errored')),
        addCoverage: vi.fn((c: unknown) => run.coverage.push(c)), end: vi.fn(() => run.events.push('end')) };
      runs.push(run);
      return run;
    }),
    dispose: vi.fn(),
  };
  return { controller, runs, items };
}

export const tests = { createTestController: vi.fn(() => makeController().controller) };
export const window = {
  createStatusBarItem: vi.fn(() => ({ show: vi.fn(), dispose: vi.fn() })),
  createOutputChannel: vi.fn(() => ({ info: vi.fn(), warn: vi.fn(), error: vi.fn(), show: vi.fn(), logLevel: 3 })),
  showErrorMessage: vi.fn(), showWarningMessage: vi.fn(), showInformationMessage: vi.fn(), showQuickPick: vi.fn(),
};
export const workspace = { getConfiguration: vi.fn(() => ({ get: () => undefined })), workspaceFolders: [] };
export const commands = { registerCommand: vi.fn(), executeCommand: vi.fn() };
export const version = '1.100.3';
