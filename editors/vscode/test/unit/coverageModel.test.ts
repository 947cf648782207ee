import { describe, expect, it } from 'vitest';
import { toCoverageModel, toFileModel, validateCoverageParams } from '../../src/common/coverageModel';
import { fallbackReport } from '../../src/common/report';
import { RTL, samplePayload } from './fixtures';

describe('toCoverageModel', () => {
  const model = toCoverageModel(samplePayload());
  const file = model.files[0]!;

  it('drops files without points and keeps the summary', () => {
    expect(model).toMatchObject({ design: 'traffic_light', ok: true, overall: 87.5, holes: 3 });
    expect(model.files.map((f) => f.uri)).toEqual([RTL]);
  });
  it('counts points like Verilator: statements=line, branches=branch+expr, declarations=toggle', () => {
    expect(file.statements).toEqual({ covered: 3, total: 4 });
    expect(file.branches).toEqual({ covered: 2, total: 3 });
    expect(file.declarations).toEqual({ covered: 1, total: 2 });
  });
  it('one statement per line, uncovered when any block on it is', () => {
    expect(file.details.map((d) => [d.line, d.executed])).toEqual([[10, 5], [12, 0], [14, 1], [16, 2]]);
  });
  it('attaches branches to their line; a branch-only line is reached when a branch ran', () => {
    expect(file.details.find((d) => d.line === 14)!.branches).toEqual([{ executed: 1, kind: 'branch', label: 'if' }]);
    expect(file.details.find((d) => d.line === 16)!.branches).toEqual([
      { executed: 0, kind: 'branch', label: 'else' },
      { executed: 2, kind: 'expr', label: 'expr: (a==1) => 1' },
    ]);
  });
  it('toggles become named declarations', () => {
    expect(file.declarationDetails).toEqual([
      { name: 'state[0]:0->1', line: 3, executed: 4 },
      { name: 'state[1]:0->1', line: 3, executed: 0 },
    ]);
  });
  it('lists uncovered lines', () => {
    expect(file.uncoveredLines).toEqual([3, 12, 16]);
  });
  it('honours enabled metrics', () => {
    const only = toFileModel(RTL, samplePayload().files[0]!.points, ['line']);
    expect(only.branches.total + only.declarations.total).toBe(0);
    expect(only.details.every((d) => d.branches.length === 0)).toBe(true);
  });
  it('a non-ok run has no files and overall null', () => {
    const m = toCoverageModel(samplePayload({ status: 'compile_error', files: [], summary: { overall: null, target: 90, metrics: {} } }));
    expect(m).toMatchObject({ ok: false, overall: null, files: [] });
  });
});

describe('validateCoverageParams', () => {
  it('accepts the protocol example', () => expect(validateCoverageParams(samplePayload())).toBeUndefined());
  it.each([
    [null, 'not an object'],
    [{ status: 'ok', files: [], summary: {} }, '`design`'],
    [{ design: 'd', status: 'ok', files: {}, summary: {} }, '`files`'],
    [{ design: 'd', status: 'ok', files: [{ uri: 1 }], summary: {} }, 'lacks'],
    [{ design: 'd', status: 'ok', files: [] }, '`summary`'],
  ])('rejects %j', (value, reason) => expect(validateCoverageParams(value)).toContain(reason));
});

describe('fallbackReport', () => {
  it('tables the metrics and lists uncovered lines', () => {
    const md = fallbackReport(samplePayload());
    expect(md).toContain('# Benchwright coverage: traffic_light');
    expect(md).toContain('| line | 3 | 4 | 75.0 |');
    expect(md).toContain('uncovered lines 3, 12, 16');
  });
  it('says what to do without coverage', () => expect(fallbackReport(undefined)).toContain('save an RTL file'));
});
