/**
 * Settings → server launch command. Pure (file-system access is injected) so the unit tests and
 * the contract test use exactly what the extension uses.
 */
import * as path from 'node:path';
import { SERVER_MODULE } from './constants';

export type InterpreterSource = 'setting' | 'venv' | 'path';

export interface Interpreter {
  command: string;
  source: InterpreterSource;
}

export interface LaunchInputs {
  /** `benchwright.python.interpreter`, variables already resolved; '' when unset. */
  interpreterSetting: string;
  /** Workspace folder paths, first one first. */
  workspaceFolders: readonly string[];
  /** Base environment of the child (usually process.env). */
  env: Record<string, string | undefined>;
  /** File-exists check (injected for tests). */
  exists: (file: string) => boolean;
  platform?: NodeJS.Platform;
}

export interface ServerLaunch {
  command: string;
  args: string[];
  cwd: string | undefined;
  env: Record<string, string>;
  interpreter: Interpreter;
}

/** Relative locations of a project virtualenv's Python. */
function venvPythons(platform: NodeJS.Platform): string[] {
  return platform === 'win32'
    ? [path.join('.venv', 'Scripts', 'python.exe')]
    : [path.join('.venv', 'bin', 'python')];
}

/**
 * The Python that runs the server: the setting, else `.venv` in a workspace folder or one of its
 * parents (a design folder inside the Benchwright checkout finds the checkout's venv), else
 * `python3` (`python` on Windows) from PATH.
 */
export function resolveInterpreter(inputs: LaunchInputs): Interpreter {
  const platform = inputs.platform ?? process.platform;
  const setting = inputs.interpreterSetting.trim();
  if (setting) return { command: setting, source: 'setting' };
  for (const folder of inputs.workspaceFolders) {
    let dir = path.resolve(folder);
    for (;;) {
      for (const rel of venvPythons(platform)) {
        const candidate = path.join(dir, rel);
        if (inputs.exists(candidate)) return { command: candidate, source: 'venv' };
      }
      const parent = path.dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
  }
  return { command: platform === 'win32' ? 'python' : 'python3', source: 'path' };
}

/** `<python> -m server` with an unbuffered, UTF-8 stdio environment. */
export function buildServerLaunch(inputs: LaunchInputs): ServerLaunch {
  const interpreter = resolveInterpreter(inputs);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(inputs.env)) if (v !== undefined) env[k] = v;
  env.PYTHONUNBUFFERED = '1';
  env.PYTHONIOENCODING = 'utf-8';
  return {
    command: interpreter.command,
    args: ['-m', SERVER_MODULE],
    cwd: inputs.workspaceFolders[0],
    env,
    interpreter,
  };
}

/** The launch as a shell-ish line for the log. */
export function describeLaunch(launch: ServerLaunch): string {
  const quote = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  return [launch.command, ...launch.args].map(quote).join(' ') + (launch.cwd ? `   (cwd ${launch.cwd})` : '');
}
