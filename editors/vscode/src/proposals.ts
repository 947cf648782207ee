/**
 * Proposals arrive as `workspace/applyEdit`. Instead of applying them silently, the extension
 * asks: Apply (one undoable edit), Review (VS Code's refactor preview, every change needs
 * confirmation) or Discard. The reply to the server says whether it was applied.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type * as lsp from 'vscode-languageclient/node';
import { MARKER_ENV } from './common/constants';
import { writeMarker } from './common/marker';
import { log } from './log';
import * as api from './vscodeapi';

type Converters = { asUri(value: string): vscode.Uri; asRange(value: lsp.Range): vscode.Range };

/** LSP WorkspaceEdit → vscode.WorkspaceEdit, optionally marking every change for confirmation. */
export function toWorkspaceEdit(edit: lsp.WorkspaceEdit, conv: Converters, metadata?: vscode.WorkspaceEditEntryMetadata): vscode.WorkspaceEdit {
  const out = new vscode.WorkspaceEdit();
  const annotated = (id: string | undefined): vscode.WorkspaceEditEntryMetadata | undefined => {
    if (!metadata) return undefined;
    const ann = id ? edit.changeAnnotations?.[id] : undefined;
    return ann ? { needsConfirmation: true, label: ann.label, description: ann.description } : metadata;
  };
  for (const change of edit.documentChanges ?? []) {
    if ('kind' in change) {
      const meta = annotated(change.annotationId);
      if (change.kind === 'create') out.createFile(conv.asUri(change.uri), { overwrite: change.options?.overwrite, ignoreIfExists: change.options?.ignoreIfExists ?? true }, meta);
      else if (change.kind === 'rename') out.renameFile(conv.asUri(change.oldUri), conv.asUri(change.newUri), change.options, meta);
      else if (change.kind === 'delete') out.deleteFile(conv.asUri(change.uri), change.options, meta);
    } else {
      const uri = conv.asUri(change.textDocument.uri);
      for (const e of change.edits) {
        out.replace(uri, conv.asRange(e.range), e.newText, annotated('annotationId' in e ? (e as lsp.AnnotatedTextEdit).annotationId : undefined));
      }
    }
  }
  for (const [uri, edits] of Object.entries(edit.changes ?? {})) {
    for (const e of edits) out.replace(conv.asUri(uri), conv.asRange(e.range), e.newText, metadata);
  }
  return out;
}

/** URIs an LSP edit touches (for the question and to open afterwards). */
export function touchedUris(edit: lsp.WorkspaceEdit): string[] {
  const uris = new Set<string>();
  for (const change of edit.documentChanges ?? []) {
    if ('kind' in change) uris.add(change.kind === 'rename' ? change.newUri : change.uri);
    else uris.add(change.textDocument.uri);
  }
  for (const uri of Object.keys(edit.changes ?? {})) uris.add(uri);
  return [...uris];
}

/** Handle one `workspace/applyEdit` from the server. */
export async function reviewAndApply(params: lsp.ApplyWorkspaceEditParams, conv: Converters): Promise<lsp.ApplyWorkspaceEditResult> {
  const uris = touchedUris(params.edit);
  const names = uris.map((u) => path.basename(conv.asUri(u).fsPath)).join(', ');
  const label = params.label ?? 'Benchwright proposal';
  const marker = process.env[MARKER_ENV];
  log().info(`Proposal received: ${label} (${uris.join(', ')})`);
  writeMarker(marker, 'proposal', { label, uris });
  const title = label.replace(/^Benchwright:\s*/i, '');
  const choice = await api.showInformationMessage(`Benchwright: ${title} — ${names}. Apply it as one undoable edit, or review each change first?`, 'Apply', 'Review', 'Discard');
  if (choice === 'Apply' || choice === 'Review') {
    const review = choice === 'Review';
    const edit = toWorkspaceEdit(params.edit, conv, review ? { needsConfirmation: true, label } : undefined);
    const applied = await api.applyEdit(edit, review ? { isRefactoring: true } : undefined);
    log().info(`Proposal ${applied ? 'applied' : 'not applied'} (${choice}).`);
    writeMarker(marker, 'proposalApplied', { applied, choice, uris });
    if (applied && uris[0]) {
      await vscode.window.showTextDocument(conv.asUri(uris[0]), { preview: false });
    }
    return { applied, failureReason: applied ? undefined : 'The edit was not applied (declined in the preview, or the files changed).' };
  }
  log().info('Proposal discarded.');
  writeMarker(marker, 'proposalApplied', { applied: false, choice: choice ?? 'dismissed', uris });
  return { applied: false, failureReason: 'Discarded by the user.' };
}
