import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Commands, LANGUAGES, Notifications, SERVER_MODULE, SERVER_NAME, WORKSPACE_TRUSTED } from '../../src/common/constants';

const root = path.resolve(__dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const protocol = fs.readFileSync(path.resolve(root, '../../docs/protocol.md'), 'utf8');
const serverProtocol = path.resolve(root, '../../server/protocol.py');

describe('protocol names', () => {
  it('every command and notification is in docs/protocol.md', () => {
    for (const name of [...Object.values(Notifications), ...Object.values(Commands).filter((c) => c !== Commands.SHOW_LOG)]) {
      expect(protocol, name).toContain('`' + name + '`');
    }
    for (const key of [WORKSPACE_TRUSTED, 'restriction', 'restrictionDetail']) {
      expect(protocol, key).toContain(`"${key}"`);
    }
  });
  it.skipIf(!fs.existsSync(serverProtocol))('matches server/protocol.py', () => {
    const py = fs.readFileSync(serverProtocol, 'utf8');
    for (const name of [...Object.values(Notifications), ...Object.values(Commands).filter((c) => c !== Commands.SHOW_LOG), SERVER_NAME, WORKSPACE_TRUSTED]) {
      expect(py, name).toContain(`"${name}"`);
    }
  });
  it('package.json contributes every command with a title, the languages, and the server identity', () => {
    const contributed = pkg.contributes.commands.map((c: { command: string }) => c.command).sort();
    expect(contributed).toEqual(Object.values(Commands).sort());
    for (const c of pkg.contributes.commands) expect(c.title.length).toBeGreaterThan(3);
    expect(pkg.contributes.languages.map((l: { id: string }) => l.id)).toEqual([...LANGUAGES]);
    expect(pkg.contributes.languages.flatMap((l: { extensions: string[] }) => l.extensions).sort()).toEqual(['.sv', '.svh', '.v', '.vh']);
    expect(pkg.serverInfo).toEqual({ name: SERVER_NAME, module: SERVER_MODULE });
    expect(pkg.activationEvents).toEqual(expect.arrayContaining(['onLanguage:verilog', 'onLanguage:systemverilog', 'workspaceContains:**/*.v', 'workspaceContains:**/*.sv']));
    expect(pkg.engines.vscode).toBe('^1.91.0');
    expect(pkg.dependencies).toEqual({ 'vscode-languageclient': expect.stringMatching(/^9\./) });
    expect(pkg.extensionDependencies ?? []).toEqual([]);
  });
});
