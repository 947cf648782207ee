import { describe, expect, it, vi } from 'vitest';

vi.mock('vscode', async () => import('./vscodeMock'));

import * as vscode from 'vscode';
import { StatusBar } from '../../src/statusBar';

const UNTRUSTED = { state: 'idle' as const, restriction: 'lint only (untrusted workspace)', restrictionDetail: 'This workspace is not trusted.' };

function bar(): { status: StatusBar; item: Record<string, unknown> } {
  const status = new StatusBar();
  const item = vi.mocked(vscode.window.createStatusBarItem).mock.results.at(-1)!.value as Record<string, unknown>;
  return { status, item };
}

describe('StatusBar', () => {
  it('keeps the restriction across state changes until a status without one', () => {
    const { status, item } = bar();
    status.setStatus(UNTRUSTED);
    expect(item.text).toBe('Benchwright: lint only (untrusted workspace)');
    expect((item.backgroundColor as { id: string }).id).toBe('statusBarItem.warningBackground');
    status.setState('idle'); // the client's own "server running" event says nothing about restrictions
    expect(item.text).toBe('Benchwright: lint only (untrusted workspace)');
    status.setStatus({ state: 'linting', message: 'linting', restriction: UNTRUSTED.restriction, restrictionDetail: UNTRUSTED.restrictionDetail });
    expect(item.text).toBe('$(sync~spin) Benchwright: lint only (untrusted workspace)');
    status.setStatus({ state: 'idle', restriction: '' });
    expect(item.text).toBe('Benchwright');
    expect(item.backgroundColor).toBeUndefined();
  });
  it('forgets the restriction when the server stops (a restarted server sends its own)', () => {
    const { status, item } = bar();
    status.setStatus(UNTRUSTED);
    status.setStopped();
    expect(item.text).toBe('$(warning) Benchwright: server stopped');
    status.setState('idle');
    expect(item.text).toBe('Benchwright');
  });
});
