import { describe, expect, it } from 'vitest';
import { formatPercent, holesText, statusView } from '../../src/common/statusText';
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
  it('pluralises holes', () => {
    expect(holesText(0)).toBe('0 holes');
    expect(holesText(1)).toBe('1 hole');
  });
});
