import { describe, expect, it, vi } from 'vitest';

vi.mock('vscode', async () => import('./vscodeMock'));
vi.mock('../../src/log', () => ({ log: () => ({ info: vi.fn(), warn: vi.fn(), error: vi.fn() }) }));

import { toWorkspaceEdit, touchedUris } from '../../src/proposals';

const conv = { asUri: (u: string) => ({ u, fsPath: u.replace('file://', '') }) as any, asRange: (r: any) => r as any };
const range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
const lspEdit = {
  documentChanges: [
    { kind: 'create' as const, uri: 'file:///ws/tb/tb_new.sv', options: { ignoreIfExists: true } },
    { textDocument: { uri: 'file:///ws/tb/tb_new.sv', version: null }, edits: [{ range, newText: 'module tb; endmodule\n' }] },
  ],
};

describe('proposals', () => {
  it('lists the touched files once', () => {
    expect(touchedUris(lspEdit)).toEqual(['file:///ws/tb/tb_new.sv']);
    expect(touchedUris({ changes: { 'file:///a.sv': [] } })).toEqual(['file:///a.sv']);
  });
  it('converts create + text edits, without metadata for a direct apply', () => {
    const edit = toWorkspaceEdit(lspEdit, conv) as any;
    expect(edit.ops.map((o: any) => o.op)).toEqual(['createFile', 'replace']);
    expect(edit.ops[1].args[2]).toBe('module tb; endmodule\n');
    expect(edit.ops[1].args[3]).toBeUndefined();
  });
  it('marks every change as needing confirmation for a review', () => {
    const edit = toWorkspaceEdit(lspEdit, conv, { needsConfirmation: true, label: 'p' }) as any;
    expect(edit.ops.every((o: any) => o.args[o.args.length - 1]?.needsConfirmation === true)).toBe(true);
  });
});
