import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('vscode', async () => import('./vscodeMock'));

import * as vscode from 'vscode';
import { PICK_TOP, ambiguityMessage, candidateLabel, topItems, validAmbiguity } from '../../src/common/topPick';
import type { AmbiguousTopParams } from '../../src/common/types';
import { offerTopPick } from '../../src/topPicker';

const PARAMS: AmbiguousTopParams = {
  uri: 'file:///ws/wbuart32/rtl/ufifo.v',
  candidates: [
    { name: 'wbuart', uri: 'file:///ws/wbuart32/rtl/wbuart.v', line: 44 },
    { name: 'axiluart', uri: 'file:///ws/wbuart32/rtl/axiluart.v', line: 41 },
  ],
  setting: 'benchwright.project.top',
};

describe('top pick (pure)', () => {
  it('labels candidates file:line, 1-based', () => {
    expect(candidateLabel(PARAMS.candidates[0]!)).toBe('wbuart (wbuart.v:45)');
    expect(topItems(PARAMS)).toEqual([
      { label: 'wbuart', description: 'wbuart.v:45', name: 'wbuart' },
      { label: 'axiluart', description: 'axiluart.v:42', name: 'axiluart' },
    ]);
  });
  it('uses the server message, else builds one', () => {
    expect(ambiguityMessage({ ...PARAMS, message: 'two tops' })).toBe('Benchwright: two tops');
    expect(ambiguityMessage(PARAMS)).toBe(
      "Benchwright: 2 modules could be the top of ufifo.v's design: wbuart (wbuart.v:45), axiluart (axiluart.v:42).");
  });
  it('rejects malformed payloads', () => {
    expect(validAmbiguity(PARAMS)).toBe(true);
    expect(validAmbiguity({ ...PARAMS, candidates: [PARAMS.candidates[0]] })).toBe(false);
    expect(validAmbiguity({ uri: 1 })).toBe(false);
    expect(validAmbiguity(null)).toBe(false);
  });
});

describe('offerTopPick', () => {
  const update = vi.fn(async () => undefined);
  beforeEach(() => {
    vi.mocked(vscode.workspace.getConfiguration).mockReturnValue({ get: () => undefined, update } as never);
    update.mockClear();
  });
  it('writes the picked module to the workspace settings', async () => {
    vi.mocked(vscode.window.showWarningMessage).mockResolvedValueOnce(PICK_TOP as never);
    vi.mocked(vscode.window.showQuickPick).mockImplementationOnce(async (items: unknown) => (items as unknown[])[1] as never);
    const events: string[] = [];
    expect(await offerTopPick(PARAMS, (e) => events.push(e))).toBe('axiluart');
    expect(update).toHaveBeenCalledWith('project.top', 'axiluart', vscode.ConfigurationTarget.Workspace);
    expect(events).toEqual(['ambiguousTop', 'topPicked']);
  });
  it('writes nothing when the notification or the pick is dismissed', async () => {
    vi.mocked(vscode.window.showWarningMessage).mockResolvedValueOnce(undefined as never);
    expect(await offerTopPick(PARAMS)).toBeUndefined();
    vi.mocked(vscode.window.showWarningMessage).mockResolvedValueOnce(PICK_TOP as never);
    vi.mocked(vscode.window.showQuickPick).mockResolvedValueOnce(undefined as never);
    expect(await offerTopPick(PARAMS)).toBeUndefined();
    expect(update).not.toHaveBeenCalled();
  });
});
