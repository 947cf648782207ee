import { describe, expect, it } from 'vitest';
import { formatPercent, holesText, restrictionOf, statusView } from '../../src/common/statusText';
import { samplePayload } from './fixtures';

describe('statusView', () => {
  it('shows "Benchwright: 87 % · 12 holes"', () => {
    const v = statusView(samplePayload({ holes: 12 }));
    expect(v.text).toBe('Benchwright: 87 % · 12 holes');
    expect(v.tone).toBe('warning');
    expect(v.tooltip).toContain('87.5 % overall (target 90 %)');
    expect(v.tooltip).toContain('line 3/4');
  });
  it('is normal at or above target', () => {
    expect(statusView(samplePayload({ summary: { overall: 95, target: 90, metrics: {} }, holes: 1 }))).toMatchObject({ text: 'Benchwright: 95 % · 1 hole', tone: 'normal' });
  });
  it('never rounds up to the target', () => expect(formatPercent(89.99)).toBe('89 %'));
  it('keeps integral percents', () => expect(formatPercent(100)).toBe('100 %'));
  it('spins while busy', () => {
    expect(statusView(samplePayload(), 'simulating').text).toMatch(/^\$\(sync~spin\) Benchwright: 87 %/);
    expect(statusView(undefined, 'linting').text).toBe('$(sync~spin) Benchwright: linting…');
  });
  it('names a failed run', () => {
    const v = statusView(samplePayload({ status: 'compile_error', detail: 'rtl/x.sv:3: syntax error', summary: { overall: null, target: 90, metrics: {} } }));
    expect(v).toMatchObject({ text: 'Benchwright: compile error', tone: 'error' });
    expect(v.tooltip).toContain('syntax error');
  });
  it('idle without coverage', () => expect(statusView(undefined).text).toBe('Benchwright'));
  it('shows an untrusted workspace as lint only, with a warning tone and the why in the tooltip', () => {
    const r = restrictionOf({ state: 'idle', restriction: 'lint only (untrusted workspace)', restrictionDetail: 'This workspace is not trusted.' });
    const v = statusView(undefined, 'idle', '', r);
    expect(v).toEqual({ text: 'Benchwright: lint only (untrusted workspace)', tooltip: 'Benchwright: This workspace is not trusted.', tone: 'warning' });
    expect(v.tooltip).not.toContain('save an RTL file');
    expect(statusView(undefined, 'linting', 'linting x', r)).toMatchObject({
      text: '$(sync~spin) Benchwright: lint only (untrusted workspace)', tooltip: 'Benchwright: This workspace is not trusted.\nlinting x' });
  });
  it('keeps the coverage and adds "no OS sandbox"', () => {
    const r = { text: 'no OS sandbox', detail: 'no OS sandbox: bwrap is not installed' };
    const v = statusView(samplePayload({ summary: { overall: 95, target: 90, metrics: {} }, holes: 1 }), 'idle', '', r);
    expect(v.text).toBe('Benchwright: 95 % · 1 hole · no OS sandbox');
    expect(v.tone).toBe('warning'); // above target, but unsandboxed
    expect(v.tooltip.split('\n')[0]).toBe('Benchwright: no OS sandbox: bwrap is not installed');
    expect(v.tooltip).toContain('95.0 % overall');
    const failed = statusView(samplePayload({ status: 'runtime_error', summary: { overall: null, target: 90, metrics: {} } }), 'idle', '', r);
    expect(failed).toMatchObject({ text: 'Benchwright: runtime error · no OS sandbox', tone: 'error' });
  });
  it('reads the restriction from each status: empty or absent means none', () => {
    expect(restrictionOf({ state: 'idle' })).toBeUndefined();
    expect(restrictionOf({ state: 'idle', restriction: '', restrictionDetail: 'x' })).toBeUndefined();
    expect(restrictionOf({ state: 'idle', restriction: 'no OS sandbox' })).toEqual({ text: 'no OS sandbox', detail: '' });
    expect(statusView(undefined, 'idle', '', restrictionOf({ state: 'idle', restriction: 'no OS sandbox' })).tooltip).toBe('Benchwright: no OS sandbox');
  });
  it('pluralises holes', () => {
    expect(holesText(0)).toBe('0 holes');
    expect(holesText(1)).toBe('1 hole');
  });
});
