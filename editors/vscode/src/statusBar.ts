/**
 * The status-bar summary ("Benchwright: 87 % · 12 holes"), which opens the report, with the server's
 * persistent restriction ("Benchwright: lint only (untrusted workspace)", "… · no OS sandbox").
 */
import * as vscode from 'vscode';
import { Commands } from './common/constants';
import { type Restriction, restrictionOf, statusView } from './common/statusText';
import type { CoverageParams, ServerState, StatusParams } from './common/types';
import * as api from './vscodeapi';

export class StatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private coverage: CoverageParams | undefined;
  private state: ServerState = 'idle';
  private message = '';
  private restriction: Restriction | undefined;

  constructor() {
    this.item = api.createStatusBarItem('benchwright.status', vscode.StatusBarAlignment.Left, 50);
    this.item.name = 'Benchwright coverage';
    this.item.command = Commands.SHOW_REPORT;
    this.render();
    this.item.show();
  }

  setCoverage(coverage: CoverageParams): void {
    this.coverage = coverage;
    this.render();
  }

  setState(state: ServerState, message = ''): void {
    this.state = state;
    this.message = message;
    this.render();
  }

  /** A `benchwright/status` notification: state, message and the restriction it carries (replacing the last). */
  setStatus(params: StatusParams): void {
    this.restriction = restrictionOf(params);
    this.setState(params.state, params.message ?? '');
  }

  setStopped(): void {
    this.restriction = undefined; // a new server says its own
    this.item.text = '$(warning) Benchwright: server stopped';
    this.item.tooltip = 'The Benchwright server is not running. Click to restart it.';
    this.item.command = Commands.RESTART_SERVER;
    this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
  }

  private render(): void {
    const view = statusView(this.coverage, this.state, this.message, this.restriction);
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.command = Commands.SHOW_REPORT;
    this.item.backgroundColor = view.tone === 'error'
      ? new vscode.ThemeColor('statusBarItem.errorBackground')
      : view.tone === 'warning' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }

  dispose(): void {
    this.item.dispose();
  }
}
