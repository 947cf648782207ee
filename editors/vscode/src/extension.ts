/** Benchwright for VS Code: activation, commands, and the wiring between server and views. */
import * as vscode from 'vscode';
import { DidSaveTextDocumentNotification } from 'vscode-languageclient/node';
import { Commands, LANGUAGES, MARKER_ENV, RESTART_DELAY_MS } from './common/constants';
import { describeLaunch } from './common/launch';
import { writeMarker } from './common/marker';
import { fallbackReport } from './common/report';
import { restartKeysAffected } from './common/settings';
import type { CoverageParams, DoctorResult, ProposalResult, ReportResult } from './common/types';
import { CoverageView } from './coverage';
import { initLog, log, notify } from './log';
import { ServerManager } from './server';
import { StatusBar } from './statusBar';
import { offerTopPick } from './topPicker';
import { VirtualDocs } from './virtualDocs';
import * as api from './vscodeapi';

let manager: ServerManager | undefined;

const isHdl = (doc: vscode.TextDocument | undefined): doc is vscode.TextDocument =>
  !!doc && LANGUAGES.includes(doc.languageId);

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const out = initLog();
  const marker = process.env[MARKER_ENV];
  context.subscriptions.push(out);
  out.info(`Benchwright ${String(context.extension.packageJSON.version)} activating in VS Code ${vscode.version}`);
  writeMarker(marker, 'activated', { version: vscode.version, hasTests: typeof vscode.tests?.createTestController === 'function' });

  const statusBar = new StatusBar();
  const docs = new VirtualDocs();
  const lastCoverage = new Map<string, CoverageParams>();
  let latest: CoverageParams | undefined;

  const coverageView = new CoverageView(async (rootUri) => simulate(rootUri));
  const server = new ServerManager({
    onCoverage: (params) => {
      latest = params;
      lastCoverage.set(params.rootUri || params.design, params);
      statusBar.setCoverage(params);
      const files = coverageView.show(params);
      out.info(`Coverage ${params.design}: ${params.status} overall=${params.summary.overall ?? 'n/a'} holes=${params.holes} (${files} files)`);
      writeMarker(marker, 'coverage', { design: params.design, status: params.status, detail: params.detail ?? '', overall: params.summary.overall, holes: params.holes, files, coverageAdded: files, top: params.top, testbenchSource: params.testbenchSource ?? '' });
    },
    onStatus: (params) => {
      statusBar.setStatus(params);
      if (params.restriction) writeMarker(marker, 'restriction', { text: params.restriction, detail: params.restrictionDetail ?? '' });
    },
    onStateChange: (running) => {
      if (!running) statusBar.setStopped();
      else statusBar.setState('idle');
    },
    onAmbiguousTop: (params) => {
      out.warn(`Ambiguous top for ${params.uri}: ${params.candidates.map((c) => c.name).join(', ')}`);
      void offerTopPick(params, (event, data) => writeMarker(marker, event, data));
    },
  });
  manager = server;
  context.subscriptions.push(statusBar, docs, coverageView, server);

  /** Ask the server to re-simulate a design: a save notification for one of its RTL files. */
  async function simulate(rootUri: string | undefined): Promise<boolean> {
    if (!api.isWorkspaceTrusted()) {
      // The server would ignore the save: say why instead of waiting for coverage that never comes.
      void notify('warning', 'Benchwright: this workspace is not trusted, so Benchwright only lints it. Trust the workspace to simulate.');
      return false;
    }
    const params = rootUri ? lastCoverage.get(rootUri) : latest;
    const target = params?.files[0]?.uri ?? (isHdl(api.activeTextEditor()?.document) ? api.activeTextEditor()!.document.uri.toString() : undefined);
    const client = server.running;
    if (!target || !client) {
      void notify('warning', 'Benchwright: open and save an RTL file of the design to simulate it.');
      return false;
    }
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(target));
    if (doc.isDirty) return doc.save();
    await client.sendNotification(DidSaveTextDocumentNotification.type, { textDocument: { uri: doc.uri.toString() } });
    return true;
  }

  /** The RTL document a command acts on: its argument, the active editor, or the last design's RTL. */
  function targetUri(arg: unknown): vscode.Uri | undefined {
    if (arg instanceof vscode.Uri) return arg;
    if (typeof arg === 'string' && arg) return vscode.Uri.parse(arg);
    const active = api.activeTextEditor()?.document;
    if (isHdl(active)) return active.uri;
    const fromCoverage = latest?.files[0]?.uri;
    return fromCoverage ? vscode.Uri.parse(fromCoverage) : undefined;
  }

  async function propose(command: string, arg: unknown): Promise<void> {
    const uri = targetUri(arg);
    if (!uri) {
      void notify('warning', 'Benchwright: open a Verilog/SystemVerilog file of the design first.');
      return;
    }
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (doc?.isDirty) await doc.save();
    log().info(`${command} ${uri.toString()}`);
    writeMarker(marker, 'command', { command, uri: uri.toString() });
    try {
      const result = await server.execute<ProposalResult>(command, [uri.toString()]);
      if (!result) return;
      writeMarker(marker, 'commandResult', { command, result });
      if (result.applied && command === Commands.ACCEPT_BEHAVIOUR) {
        void notify('info', 'Benchwright: the testbench\'s checks are recorded again (not saved yet). Review them, then save the testbench to re-run it; undo with Ctrl+Z.');
      } else if (result.applied) {
        const pct = typeof result.overall === 'number' ? ` (overall ${result.overall.toFixed(1)} %)` : '';
        void notify('info', `Benchwright: testbench applied${pct}. Undo with Ctrl+Z in the testbench editor.`);
      } else if (result.cancelled) {
        log().info(`${command} cancelled.`);
      } else {
        void notify('warning', `Benchwright: nothing applied${result.message ? `: ${result.message}` : '.'}`);
      }
    } catch (err) {
      void notify('error', `Benchwright: ${command} failed: ${err instanceof Error ? err.message : String(err)}`, 'Show Log');
    }
  }

  context.subscriptions.push(
    api.registerCommand(Commands.GENERATE_TESTBENCH, (arg?: unknown) => propose(Commands.GENERATE_TESTBENCH, arg)),
    api.registerCommand(Commands.IMPROVE_COVERAGE, (arg?: unknown) => propose(Commands.IMPROVE_COVERAGE, arg)),
    // The code action of a failed check (the server offers it; the client runs it like a proposal).
    api.registerCommand(Commands.ACCEPT_BEHAVIOUR, (arg?: unknown) => propose(Commands.ACCEPT_BEHAVIOUR, arg)),
    api.registerCommand(Commands.SHOW_REPORT, async (arg?: unknown) => {
      const uri = targetUri(arg);
      let markdown: string | undefined;
      if (server.running) {
        try {
          markdown = (await server.execute<ReportResult>(Commands.SHOW_REPORT, uri ? [uri.toString()] : []))?.markdown;
        } catch (err) {
          log().warn(`showReport: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
      const text = markdown && markdown.trim() ? markdown : fallbackReport(latest);
      writeMarker(marker, 'report', { fromServer: !!markdown, chars: text.length });
      await docs.showMarkdown('Benchwright Coverage Report.md', text);
    }),
    api.registerCommand(Commands.DOCTOR, async () => {
      const lines = ['# Benchwright doctor', '', '## Extension', `VS Code ${vscode.version}`,
        `Workspace trusted: ${api.isWorkspaceTrusted() ? 'yes' : 'no (lint only; the workspace .venv is not used)'}`];
      if (server.lastLaunch) lines.push(`Server command: ${describeLaunch(server.lastLaunch)} (python from ${server.lastLaunch.interpreter.source})`);
      if (server.lastVerdict?.probe) lines.push(`Preflight: ${JSON.stringify(server.lastVerdict.probe)}`);
      for (const p of server.lastVerdict?.problems ?? []) lines.push(`Problem: ${p.message} Fix: ${p.fix}`);
      lines.push('', '## Server');
      try {
        const result = server.running ? await server.execute<DoctorResult>(Commands.DOCTOR, []) : undefined;
        lines.push(result?.text ?? '(server not running)');
      } catch (err) {
        lines.push(`(doctor failed: ${err instanceof Error ? err.message : String(err)})`);
      }
      const text = lines.join('\n');
      log().info(text);
      await docs.showText('Benchwright Doctor.md', text);
    }),
    api.registerCommand(Commands.RESTART_SERVER, () => server.restart()),
    api.registerCommand(Commands.SHOW_LOG, () => out.show()),
  );

  // Granting trust lifts "lint only": restart so the server (and its interpreter) start trusted.
  context.subscriptions.push(api.onDidGrantWorkspaceTrust(() => {
    log().info('Workspace trusted; restarting the server with simulation enabled.');
    void server.restart();
  }));

  // Settings that change the server process restart it, debounced.
  let restartTimer: NodeJS.Timeout | undefined;
  context.subscriptions.push(api.onDidChangeConfiguration((e) => {
    const keys = restartKeysAffected((section) => e.affectsConfiguration(section));
    if (keys.length === 0) return;
    log().info(`Settings changed (${keys.join(', ')}); restarting the server in ${RESTART_DELAY_MS} ms.`);
    if (restartTimer) clearTimeout(restartTimer);
    restartTimer = setTimeout(() => { restartTimer = undefined; void server.restart(); }, RESTART_DELAY_MS);
  }), { dispose: () => { if (restartTimer) clearTimeout(restartTimer); } });

  if (marker) {
    context.subscriptions.push(vscode.languages.onDidChangeDiagnostics((e) => {
      for (const uri of e.uris) {
        const diags = vscode.languages.getDiagnostics(uri);
        writeMarker(marker, 'diagnostics', {
          uri: uri.toString(),
          errors: diags.filter((d) => d.severity === vscode.DiagnosticSeverity.Error).length,
          total: diags.length,
          sources: [...new Set(diags.map((d) => d.source ?? ''))],
          items: diags.map((d) => ({
            severity: vscode.DiagnosticSeverity[d.severity].toLowerCase(),
            code: typeof d.code === 'object' ? String(d.code.value) : String(d.code ?? ''),
            line: d.range.start.line,
            message: d.message,
            related: (d.relatedInformation ?? []).map((r) => ({
              file: r.location.uri.path.split('/').pop(), line: r.location.range.start.line, message: r.message })),
          })),
        });
      }
    }));
  }

  void server.start();
}

export async function deactivate(): Promise<void> {
  await manager?.stop();
  manager = undefined;
}
