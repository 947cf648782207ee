/**
 * Thin wrappers over the vscode APIs the extension uses, so modules can be tested with a mocked
 * `vscode` and the API surface stays visible in one place (template `common/vscodeapi.ts`).
 */
import * as vscode from 'vscode';

export function getConfiguration(section: string, scope?: vscode.ConfigurationScope): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration(section, scope);
}

export function getWorkspaceFolders(): readonly vscode.WorkspaceFolder[] {
  return vscode.workspace.workspaceFolders ?? [];
}

/** Workspace Trust: false in Restricted Mode (true where trust is disabled). */
export function isWorkspaceTrusted(): boolean {
  return vscode.workspace.isTrusted;
}

export function onDidGrantWorkspaceTrust(listener: () => unknown): vscode.Disposable {
  return vscode.workspace.onDidGrantWorkspaceTrust(listener);
}

export function onDidChangeConfiguration(listener: (e: vscode.ConfigurationChangeEvent) => unknown): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration(listener);
}

export function registerCommand(command: string, callback: (...args: any[]) => unknown): vscode.Disposable {
  return vscode.commands.registerCommand(command, callback);
}

export function executeCommand<T = unknown>(command: string, ...rest: unknown[]): Thenable<T> {
  return vscode.commands.executeCommand<T>(command, ...rest);
}

export function createOutputChannel(name: string): vscode.LogOutputChannel {
  return vscode.window.createOutputChannel(name, { log: true });
}

export function createStatusBarItem(id: string, alignment: vscode.StatusBarAlignment, priority: number): vscode.StatusBarItem {
  return vscode.window.createStatusBarItem(id, alignment, priority);
}

export function showErrorMessage<T extends string>(message: string, ...items: T[]): Thenable<T | undefined> {
  return vscode.window.showErrorMessage(message, ...items);
}

export function showWarningMessage<T extends string>(message: string, ...items: T[]): Thenable<T | undefined> {
  return vscode.window.showWarningMessage(message, ...items);
}

export function showInformationMessage<T extends string>(message: string, ...items: T[]): Thenable<T | undefined> {
  return vscode.window.showInformationMessage(message, ...items);
}

export function activeTextEditor(): vscode.TextEditor | undefined {
  return vscode.window.activeTextEditor;
}

export function applyEdit(edit: vscode.WorkspaceEdit, metadata?: vscode.WorkspaceEditMetadata): Thenable<boolean> {
  return vscode.workspace.applyEdit(edit, metadata);
}

export function createTestController(id: string, label: string): vscode.TestController {
  return vscode.tests.createTestController(id, label);
}

export function showQuickPick<T extends vscode.QuickPickItem>(items: readonly T[], options?: vscode.QuickPickOptions): Thenable<T | undefined> {
  return vscode.window.showQuickPick(items, options);
}
