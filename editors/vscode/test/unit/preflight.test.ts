import { describe, expect, it } from 'vitest';
import { formatProblem, interpretPreflight, PREFLIGHT_CODE } from '../../src/common/preflight';

const good = { python: '3.11.7', executable: '/ws/.venv/bin/python', server: true, pygls: true, sim: true, verilator: 'Verilator 5.052', verilatorPath: '/v' };
const out = (probe: object, extra = '') => ({ exitCode: 0, stdout: `${extra}${JSON.stringify(probe)}\n`, stderr: '' });

describe('interpretPreflight', () => {
  it('starts with no problems when everything is there', () => {
    const v = interpretPreflight('python3', out(good, 'noise\n'));
    expect(v).toMatchObject({ canStart: true, problems: [] });
    expect(v.probe?.verilator).toBe('Verilator 5.052');
  });
  it('missing Python: names it and says how to fix', () => {
    const v = interpretPreflight('/nope/python', { spawnError: 'ENOENT', exitCode: null, stdout: '', stderr: '' });
    expect(v.canStart).toBe(false);
    expect(v.problems[0]!.message).toContain('`/nope/python` was not found');
    expect(v.problems[0]!.fix).toContain('benchwright.python.interpreter');
  });
  it('missing package: make setup / pip install -e .', () => {
    const v = interpretPreflight('python3', out({ ...good, server: false, sim: false, verilatorError: 'No module named sim' }));
    expect(v.canStart).toBe(false);
    expect(v.problems).toHaveLength(1);
    expect(formatProblem(v.problems[0]!)).toMatch(/cannot import `server`, `sim`.*make setup.*pip install -e \./);
  });
  it('missing Verilator: a warning, the server still starts', () => {
    const v = interpretPreflight('python3', out({ ...good, verilator: undefined, verilatorError: 'Verilator not found (no bundled package, not on PATH).' }));
    expect(v.canStart).toBe(true);
    expect(v.problems[0]).toMatchObject({ severity: 'warning' });
    expect(v.problems[0]!.message).toContain('Verilator not found');
    expect(v.problems[0]!.fix).toContain('benchwright.sim.verilatorPath');
  });
  it('not a Python: reports the exit and stderr', () => {
    const v = interpretPreflight('/bin/false', { exitCode: 1, stdout: '', stderr: 'boom\nSyntaxError: bad' });
    expect(v.canStart).toBe(false);
    expect(v.problems[0]!.message).toContain('exit 1: SyntaxError: bad');
  });
  it('the probe is valid Python that prints one JSON line', () => {
    expect(PREFLIGHT_CODE).toContain('print(json.dumps(r))');
    expect(PREFLIGHT_CODE.split('\n').every((l) => !l.includes('\t'))).toBe(true);
  });
});
