import { describe, expect, it } from 'vitest';
import { buildServerLaunch, describeInterpreter, describeLaunch, resolveInterpreter, type LaunchInputs } from '../../src/common/launch';

const base = (over: Partial<LaunchInputs>): LaunchInputs => ({
  interpreterSetting: '', workspaceFolders: ['/ws/proj'], env: { PATH: '/usr/bin', UNSET: undefined }, exists: () => false, platform: 'linux', ...over,
});

describe('resolveInterpreter', () => {
  it.each([
    ['the setting wins', { interpreterSetting: ' /opt/py/bin/python ', exists: () => true }, '/opt/py/bin/python', 'setting'],
    ['workspace .venv', { exists: (p: string) => p === '/ws/proj/.venv/bin/python' }, '/ws/proj/.venv/bin/python', 'venv'],
    ['a parent .venv (design folder inside the checkout)', { workspaceFolders: ['/repo/examples/tl'], exists: (p: string) => p === '/repo/.venv/bin/python' }, '/repo/.venv/bin/python', 'venv'],
    ['the nearest .venv first', { workspaceFolders: ['/repo/a'], exists: (p: string) => p === '/repo/.venv/bin/python' || p === '/repo/a/.venv/bin/python' }, '/repo/a/.venv/bin/python', 'venv'],
    ['python3 from PATH', {}, 'python3', 'path'],
    ['no folders', { workspaceFolders: [] }, 'python3', 'path'],
    ['windows', { platform: 'win32' as const, exists: (p: string) => p.endsWith('python.exe') && p.includes('proj') }, expect.stringMatching(/Scripts.python\.exe$/), 'venv'],
  ])('%s', (_name, over, command, source) => {
    const it = resolveInterpreter(base(over as Partial<LaunchInputs>));
    expect(it.command).toEqual(command);
    expect(it.source).toBe(source);
  });
});

describe('an untrusted workspace', () => {
  const everyVenv = (p: string): boolean => p.endsWith('/.venv/bin/python');
  it('never uses a .venv in or above the workspace folders', () => {
    const looked: string[] = [];
    const it = resolveInterpreter(base({ trusted: false, workspaceFolders: ['/repo/a'], exists: (p) => { looked.push(p); return everyVenv(p); } }));
    expect(it).toEqual({ command: 'python3', source: 'path' });
    expect(looked).toEqual([]);
    expect(buildServerLaunch(base({ trusted: false, exists: everyVenv })).command).toBe('python3');
  });
  it('still honours the interpreter setting (a user setting: VS Code drops workspace values of it)', () => {
    expect(resolveInterpreter(base({ trusted: false, interpreterSetting: '/opt/py', exists: everyVenv }))).toEqual({ command: '/opt/py', source: 'setting' });
  });
  it('uses the .venv once trusted (the default)', () => {
    expect(resolveInterpreter(base({ trusted: true, exists: everyVenv })).source).toBe('venv');
    expect(resolveInterpreter(base({ exists: everyVenv })).source).toBe('venv');
  });
  it('says so in the log', () => {
    expect(describeInterpreter({ command: 'python3', source: 'path' }, false))
      .toBe('Python: python3 (from PATH; the workspace is not trusted, so its .venv was not used (lint only; choose a Python with benchwright.python.interpreter in your user settings))');
    expect(describeInterpreter({ command: '/opt/py', source: 'setting' }, false)).toBe('Python: /opt/py (from benchwright.python.interpreter; the workspace is not trusted: lint only)');
    expect(describeInterpreter({ command: '/ws/.venv/bin/python', source: 'venv' }, true)).toBe('Python: /ws/.venv/bin/python (from the workspace .venv)');
    expect(describeInterpreter({ command: 'python3', source: 'path' }, true)).toBe('Python: python3 (from PATH)');
  });
});

describe('buildServerLaunch', () => {
  it('runs `<python> -m server` in the first folder with an unbuffered UTF-8 env', () => {
    const launch = buildServerLaunch(base({ interpreterSetting: '/py' }));
    expect(launch.command).toBe('/py');
    expect(launch.args).toEqual(['-m', 'server']);
    expect(launch.cwd).toBe('/ws/proj');
    expect(launch.env).toEqual({ PATH: '/usr/bin', PYTHONUNBUFFERED: '1', PYTHONIOENCODING: 'utf-8' });
  });
  it('describes itself with quoting', () => {
    const launch = buildServerLaunch(base({ interpreterSetting: '/my py/python' }));
    expect(describeLaunch(launch)).toBe(`'/my py/python' -m server   (cwd /ws/proj)`);
  });
});
