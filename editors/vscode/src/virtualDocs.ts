/** Read-only virtual documents for the coverage report and the doctor output. */
import * as vscode from 'vscode';
import { REPORT_SCHEME } from './common/constants';

export class VirtualDocs implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  private readonly contents = new Map<string, string>();
  private readonly registration: vscode.Disposable;
  readonly onDidChange = this.changed.event;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(REPORT_SCHEME, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? '';
  }

  /** Set the text of `benchwright-report:/<name>` and return its URI. */
  set(name: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: REPORT_SCHEME, path: `/${name}` });
    this.contents.set(uri.toString(), text);
    this.changed.fire(uri);
    return uri;
  }

  /** Open as a rendered markdown preview, falling back to the plain document. */
  async showMarkdown(name: string, markdown: string): Promise<void> {
    const uri = this.set(name, markdown);
    try {
      await vscode.commands.executeCommand('markdown.showPreview', uri);
    } catch {
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: true });
    }
  }

  async showText(name: string, text: string): Promise<void> {
    const uri = this.set(name, text);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: true });
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }
}
