import { beforeEach, describe, expect, it, vi } from 'vitest';

const mock = vi.hoisted(() => ({ controller: undefined as any, runs: [] as any[] }));
vi.mock('vscode', async () => {
  const m = await import('./vscodeMock');
  return {
    ...m,
    tests: {
      createTestController: vi.fn(() => {
        const made = m.makeController();
        mock.controller = made.controller;
        mock.runs = made.runs;
        return made.controller;
      }),
    },
  };
});

import { CoverageView, detailsOf } from '../../src/coverage';
import { toCoverageModel } from '../../src/common/coverageModel';
import { samplePayload } from './fixtures';

describe('CoverageView', () => {
  let view: CoverageView;
  const simulate = vi.fn(async () => true);
  beforeEach(() => {
    view = new CoverageView(simulate);
  });

  it('registers a default coverage run profile with detail loading', () => {
    const profile = mock.controller.createRunProfile.mock.results[0].value;
    expect(profile).toMatchObject({ label: 'Simulate with coverage', kind: 3, isDefault: true });
    expect(typeof profile.loadDetailedCoverage).toBe('function');
  });

  it('turns one notification into one finished coverage run', async () => {
    expect(view.show(samplePayload())).toBe(1);
    const run = mock.runs[0];
    expect(run.name).toBe('Benchwright: traffic_light');
    expect(run.persist).toBe(false);
    expect(run.events).toEqual(['started', 'passed', 'end']);
    const fc = run.coverage[0];
    expect(fc.statementCoverage).toMatchObject({ covered: 3, total: 4 });
    expect(fc.branchCoverage).toMatchObject({ covered: 2, total: 3 });
    expect(fc.declarationCoverage).toMatchObject({ covered: 1, total: 2 });
    const profile = mock.controller.createRunProfile.mock.results[0].value;
    const details = await profile.loadDetailedCoverage(run, fc, {});
    expect(details).toHaveLength(6);
    expect(mock.controller.items.get('file:///ws/traffic_light')).toMatchObject({ label: 'traffic_light' });
  });

  it('marks compile errors as errored and adds no coverage', () => {
    view.show(samplePayload({ status: 'compile_error', detail: 'syntax error', files: [] }));
    expect(mock.runs[0].events).toEqual(['started', 'errored', 'end']);
    expect(mock.runs[0].coverage).toHaveLength(0);
  });

  it('reuses the design test item', () => {
    view.show(samplePayload());
    view.show(samplePayload({ holes: 1 }));
    expect(mock.runs).toHaveLength(2);
    expect(mock.runs[1].request.include[0]).toBe(mock.runs[0].request.include[0]);
  });

  it('Run with coverage asks the server and resolves on the next notification', async () => {
    view.show(samplePayload());
    const profile = mock.controller.createRunProfile.mock.results[0].value;
    const token = { isCancellationRequested: false, onCancellationRequested: vi.fn() };
    const done = profile.handler({ include: undefined }, token);
    await Promise.resolve();
    expect(simulate).toHaveBeenCalledWith('file:///ws/traffic_light');
    view.show(samplePayload({ holes: 0 }));
    await expect(done).resolves.toBeUndefined();
  });
});

describe('detailsOf', () => {
  it('uses 0-based lines and carries branch labels', () => {
    const details = detailsOf(toCoverageModel(samplePayload()).files[0]!) as any[];
    const line16 = details.find((d) => d.location?.startLine === 15);
    expect(line16.executed).toBe(2);
    expect(line16.branches.map((b: any) => [b.executed, b.label])).toEqual([[0, 'else'], [2, 'expr: (a==1) => 1']]);
    const toggle = details.find((d) => d.name === 'state[1]:0->1');
    expect(toggle).toMatchObject({ executed: 0, location: { line: 2, character: 0 } });
  });
});
