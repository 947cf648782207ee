/** The Benchwright LogOutputChannel, popup policy, and LSP trace level. */
import * as vscode from 'vscode';
import { Trace } from 'vscode-languageclient/node';
import { CONFIG_SECTION } from './common/constants';
import { type MessageSeverity, shouldNotify } from './common/settings';
import * as api from './vscodeapi';

let channel: vscode.LogOutputChannel | undefined;

export function initLog(): vscode.LogOutputChannel {
  channel ??= api.createOutputChannel('Benchwright');
  return channel;
}

export function log(): vscode.LogOutputChannel {
  return initLog();
}

/** Map the channel's level to the language client's trace (template getLSClientTraceLevel). */
export function traceLevel(level: vscode.LogLevel): Trace {
  switch (level) {
    case vscode.LogLevel.Trace: return Trace.Verbose;
    case vscode.LogLevel.Debug: return Trace.Messages;
    default: return Trace.Off;
  }
}

/**
 * Log a message and pop it up when `benchwright.showNotifications` allows; returns the chosen
 * action. The channel always gets it.
 */
export async function notify<T extends string>(severity: MessageSeverity, message: string, ...actions: T[]): Promise<T | undefined> {
  const out = log();
  if (severity === 'error') out.error(message);
  else if (severity === 'warning') out.warn(message);
  else out.info(message);
  const level = api.getConfiguration(CONFIG_SECTION).get<string>('showNotifications');
  if (!shouldNotify(level, severity)) return undefined;
  const show = severity === 'error' ? api.showErrorMessage : severity === 'warning' ? api.showWarningMessage : api.showInformationMessage;
  return show<T>(message, ...actions);
}
