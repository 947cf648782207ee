import type { CoverageParams } from '../../src/common/types';

export const RTL = 'file:///ws/traffic_light/rtl/traffic_light.sv';

/** A payload shaped exactly as docs/protocol.md shows. */
export function samplePayload(overrides: Partial<CoverageParams> = {}): CoverageParams {
  return {
    design: 'traffic_light',
    top: 'traffic_light',
    rootUri: 'file:///ws/traffic_light',
    testbenchUri: 'file:///ws/traffic_light/tb/tb_traffic_light.sv',
    version: 7,
    status: 'ok',
    detail: '',
    summary: {
      overall: 87.5,
      target: 90,
      metrics: {
        line: { covered: 3, total: 4, percent: 75 },
        branch: { covered: 1, total: 2, percent: 50 },
        toggle: { covered: 1, total: 2, percent: 50 },
        expr: { covered: 1, total: 1, percent: 100 },
      },
    },
    holes: 3,
    files: [{
      uri: RTL,
      points: [
        { line: 10, kind: 'line', count: 5, comment: 'block' },
        { line: 12, kind: 'line', count: 0, comment: 'block' },
        { line: 12, kind: 'line', count: 3, comment: 'block' },
        { line: 14, kind: 'line', count: 1, comment: 'block' },
        { line: 14, kind: 'branch', count: 1, comment: 'if' },
        { line: 16, kind: 'branch', count: 0, comment: 'else' },
        { line: 16, kind: 'expr', count: 2, comment: '(a==1) => 1' },
        { line: 3, kind: 'toggle', count: 4, comment: 'state[0]:0->1' },
        { line: 3, kind: 'toggle', count: 0, comment: 'state[1]:0->1' },
      ],
    }, { uri: 'file:///ws/traffic_light/rtl/empty.sv', points: [] }],
    lcovPath: '/ws/.benchwright/coverage/traffic_light.info',
    buildSeconds: 0.4,
    runSeconds: 0.01,
    ...overrides,
  };
}
