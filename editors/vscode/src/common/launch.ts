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
  /**
   * Workspace Trust (default true). Untrusted: never look for a `.venv` in or above the workspace
   * folders, since running a stranger's `.venv/bin/python` runs their code.
   */
  trusted?: boolean;
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
 * `python3` (`python` on Windows) from PATH. An untrusted workspace skips the `.venv` search.
 */
export function resolveInterpreter(inputs: LaunchInputs): Interpreter {
  const platform = inputs.platform ?? process.platform;
  const setting = inputs.interpreterSetting.trim();
  if (setting) return { command: setting, source: 'setting' };
  const folders = inputs.trusted === false ? [] : inputs.workspaceFolders;
  for (const folder of folders) {
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

/** The log line saying which Python runs the server and where it came from. */
export function describeInterpreter(interpreter: Interpreter, trusted: boolean): string {
  const from = interpreter.source === 'setting' ? 'benchwright.python.interpreter'
    : interpreter.source === 'venv' ? 'the workspace .venv' : 'PATH';
  const untrusted = trusted ? '' : interpreter.source === 'setting'
    ? '; the workspace is not trusted: lint only'
    : '; the workspace is not trusted, so its .venv was not used (lint only; choose a Python with benchwright.python.interpreter in your user settings)';
  return `Python: ${interpreter.command} (from ${from}${untrusted})`;
}

/** The launch as a shell-ish line for the log. */
export function describeLaunch(launch: ServerLaunch): string {
  const quote = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  return [launch.command, ...launch.args].map(quote).join(' ') + (launch.cwd ? `   (cwd ${launch.cwd})` : '');
}
