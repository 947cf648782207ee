/**
 * The top-module picker: a `benchwright/ambiguousTop` notification becomes a warning with a
 * "Pick top…" button; the quick pick lists the candidates (file:line) and writes the chosen
 * module to `benchwright.project.top` in the workspace settings (the server re-resolves on
 * the configuration change).
 */
import * as vscode from 'vscode';
import { CONFIG_SECTION, TOP_SETTING_KEY } from './common/constants';
import { PICK_TOP, ambiguityMessage, topItems } from './common/topPick';
import type { AmbiguousTopParams } from './common/types';
import * as api from './vscodeapi';

export type PickEvent = (event: string, data: Record<string, unknown>) => void;

/** Show the notification; on "Pick top…", the quick pick; returns the module written, if any. */
export async function offerTopPick(params: AmbiguousTopParams, onEvent: PickEvent = () => undefined): Promise<string | undefined> {
  const message = ambiguityMessage(params);
  onEvent('ambiguousTop', { uri: params.uri, candidates: params.candidates.map((c) => c.name), message });
  const choice = await api.showWarningMessage(message, PICK_TOP);
  if (choice !== PICK_TOP) return undefined;
  return pickTop(params, onEvent);
}

/** The quick pick alone (also the command behind the button). */
export async function pickTop(params: AmbiguousTopParams, onEvent: PickEvent = () => undefined): Promise<string | undefined> {
  const picked = await api.showQuickPick(topItems(params), {
    title: 'Benchwright: top module of this design',
    placeHolder: 'The module to simulate as the top (saved as benchwright.project.top in the workspace settings)',
  });
  if (!picked) return undefined;
  const scope = vscode.Uri.parse(params.uri);
  await api.getConfiguration(CONFIG_SECTION, scope).update(TOP_SETTING_KEY, picked.name, vscode.ConfigurationTarget.Workspace);
  onEvent('topPicked', { name: picked.name, uri: params.uri });
  return picked.name;
}
