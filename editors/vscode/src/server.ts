/**
 * Start, stop and restart the Benchwright language server (`<python> -m server`, stdio).
 * A preflight probe turns "cannot start" into one message with the fix; `maxRestartCount: 0`
 * style behaviour (no crash loop) with a Restart command instead.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as vscode from 'vscode';
import {
  type ApplyWorkspaceEditParams,
  type ApplyWorkspaceEditResult,
  CloseAction,
  type DynamicFeature,
  ErrorAction,
  ExecuteCommandRequest,
  FileChangeType,
  type LanguageClientOptions,
  LanguageClient,
  type ServerOptions,
  type StaticFeature,
  State,
  TransportKind,
} from 'vscode-languageclient/node';
import { CONFIG_SECTION, LANGUAGES, MARKER_ENV, Notifications, SERVER_NAME } from './common/constants';
import { buildServerLaunch, describeInterpreter, describeLaunch, type ServerLaunch } from './common/launch';
import { formatProblem, type PreflightVerdict, runPreflight } from './common/preflight';
import { buildSettings, initializationOptions, resolveDeep, type VariableContext } from './common/settings';
import type { AmbiguousTopParams, CoverageParams, StatusParams } from './common/types';
import { validAmbiguity } from './common/topPick';
import { validateCoverageParams } from './common/coverageModel';
import { writeMarker } from './common/marker';
import { log, notify, traceLevel } from './log';
import { reviewAndApply } from './proposals';
import * as api from './vscodeapi';

/**
 * The language client, minus vscode-languageclient's own command registration: the extension
 * contributes and registers the server's commands itself (so they exist in the palette even
 * when the server is down, and get the active document as argument), and proposals go through
 * a review step instead of being applied directly.
 */
class BenchwrightClient extends LanguageClient {
  override registerFeature(feature: StaticFeature | DynamicFeature<unknown>): void {
    const method = (feature as Partial<DynamicFeature<unknown>>).registrationType?.method;
    if (method === ExecuteCommandRequest.method) return;
    super.registerFeature(feature);
  }
}
// handleApplyWorkspaceEdit is private in the typings; replace it on the prototype.
(BenchwrightClient.prototype as unknown as { handleApplyWorkspaceEdit(p: ApplyWorkspaceEditParams): Promise<ApplyWorkspaceEditResult> })
  .handleApplyWorkspaceEdit = async function (this: LanguageClient, params: ApplyWorkspaceEditParams) {
    return reviewAndApply(params, this.protocol2CodeConverter);
  };

/** Whether a document with this URI (string form) is open in the editor. */
function isOpen(uri: string): boolean {
  const wanted = vscode.Uri.parse(uri).toString();
  return vscode.workspace.textDocuments.some((d) => d.uri.toString() === wanted);
}

function variableContext(folder: vscode.WorkspaceFolder | undefined): VariableContext {
  return { workspaceFolder: folder?.uri.fsPath, userHome: os.homedir(), env: process.env };
}

/** The resolved `benchwright` section for a folder (what initializationOptions carry). */
export function currentSettings(folder?: vscode.WorkspaceFolder): Record<string, unknown> {
  const config = api.getConfiguration(CONFIG_SECTION, folder?.uri);
  return resolveDeep(buildSettings((key) => config.get(key)), variableContext(folder));
}

/** The launch the current settings give. */
export function currentLaunch(): ServerLaunch {
  const folders = api.getWorkspaceFolders();
  const first = folders[0];
  const interpreter = api.getConfiguration(CONFIG_SECTION, first?.uri).get<string>('python.interpreter') ?? '';
  return buildServerLaunch({
    interpreterSetting: resolveDeep(interpreter, variableContext(first)),
    workspaceFolders: folders.map((f) => f.uri.fsPath),
    env: process.env,
    trusted: api.isWorkspaceTrusted(),
    exists: (p) => {
      try {
        return fs.statSync(p).isFile();
      } catch {
        return false;
      }
    },
  });
}

export interface ServerEvents {
  onCoverage(params: CoverageParams): void;
  onStatus(params: StatusParams): void;
  onStateChange(running: boolean): void;
  /** Several modules could be the top of a document's design (`benchwright/ambiguousTop`). */
  onAmbiguousTop(params: AmbiguousTopParams): void;
}

export class ServerManager implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<void> | undefined;
  lastLaunch: ServerLaunch | undefined;
  lastVerdict: PreflightVerdict | undefined;

  constructor(private readonly events: ServerEvents) {}

  get running(): LanguageClient | undefined {
    return this.client?.state === State.Running ? this.client : undefined;
  }

  async start(): Promise<void> {
    this.starting ??= this.doStart().finally(() => { this.starting = undefined; });
    return this.starting;
  }

  private async doStart(): Promise<void> {
    const out = log();
    const marker = process.env[MARKER_ENV];
    const launch = currentLaunch();
    this.lastLaunch = launch;
    const trusted = api.isWorkspaceTrusted();
    out.info(describeInterpreter(launch.interpreter, trusted));
    const folder = api.getWorkspaceFolders()[0];
    const verilatorPath = String((currentSettings(folder).sim as Record<string, unknown> | undefined)?.verilatorPath ?? '');
    const verdict = await runPreflight(launch, verilatorPath);
    this.lastVerdict = verdict;
    if (verdict.probe) out.info(`Preflight: ${JSON.stringify(verdict.probe)}`);
    writeMarker(marker, 'preflight', { command: launch.command, canStart: verdict.canStart, problems: verdict.problems });
    for (const problem of verdict.problems) {
      // Fire and forget: an unanswered pop-up must not hold the start-up.
      void notify(problem.severity, `Benchwright: ${formatProblem(problem)}`, 'Open Settings', 'Show Log').then((action) => {
        if (action === 'Open Settings') void api.executeCommand('workbench.action.openSettings', 'benchwright.');
        else if (action === 'Show Log') out.show();
      });
    }
    if (!verdict.canStart) {
      this.events.onStateChange(false);
      return;
    }

    const serverOptions: ServerOptions = {
      command: launch.command,
      args: launch.args,
      transport: TransportKind.stdio,
      options: { cwd: launch.cwd, env: launch.env },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: LANGUAGES.flatMap((language) => [{ scheme: 'file', language }, { scheme: 'untitled', language }]),
      outputChannel: out,
      traceOutputChannel: out,
      initializationOptions: initializationOptions(currentSettings(folder), trusted),
      // The server registers its own file watchers (workspace/didChangeWatchedFiles, dynamic).
      synchronize: { configurationSection: CONFIG_SECTION },
      // No crash loop: on a crash say so once and offer Restart.
      errorHandler: {
        error: () => ({ action: ErrorAction.Continue }),
        closed: () => {
          void notify('error', 'Benchwright: the language server stopped. See the Benchwright output for why; run "Benchwright: Restart Server" after fixing it.');
          this.events.onStateChange(false);
          return { action: CloseAction.DoNotRestart };
        },
      },
      middleware: {
        workspace: {
          // A saved open document already reached the server as didSave; the watcher's Changed
          // event for the same file would only start a second, competing simulation.
          didChangeWatchedFile: async (event, next) => {
            if (event.type === FileChangeType.Changed && isOpen(event.uri)) return;
            await next(event);
          },
          configuration: async (params, token, next) => {
            const result = await next(params, token);
            if (!Array.isArray(result)) return result;
            return result.map((value: unknown, i: number) => {
              const scope = params.items[i]?.scopeUri;
              const wsFolder = scope ? vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(scope)) : folder;
              return resolveDeep(value, variableContext(wsFolder));
            });
          },
        },
      },
    };
    out.info(`Starting: ${describeLaunch(launch)}`);
    const client = new BenchwrightClient(SERVER_NAME, 'Benchwright Language Server', serverOptions, clientOptions);
    client.onNotification(Notifications.COVERAGE, (params: unknown) => {
      const problem = validateCoverageParams(params);
      if (problem) {
        out.error(`Ignoring malformed ${Notifications.COVERAGE}: ${problem}`);
        return;
      }
      this.events.onCoverage(params as CoverageParams);
    });
    client.onNotification(Notifications.STATUS, (params: StatusParams) => this.events.onStatus(params));
    client.onNotification(Notifications.AMBIGUOUS_TOP, (params: unknown) => {
      if (!validAmbiguity(params)) {
        out.error(`Ignoring malformed ${Notifications.AMBIGUOUS_TOP}`);
        return;
      }
      this.events.onAmbiguousTop(params);
    });
    this.client = client;
    try {
      await client.start();
      await client.setTrace(traceLevel(out.logLevel));
      const info = client.initializeResult?.serverInfo;
      out.info(`Server running: ${info?.name ?? '?'} ${info?.version ?? ''}`);
      writeMarker(marker, 'serverStarted', { serverInfo: info ?? null });
      this.events.onStateChange(true);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      writeMarker(marker, 'serverFailed', { message });
      void notify('error', `Benchwright: the language server failed to start (${message}). The server log is in the Benchwright output; fix and run "Benchwright: Restart Server".`);
      this.events.onStateChange(false);
    }
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    try {
      if (client.state !== State.Stopped) await client.stop(5000);
    } catch (err) {
      log().warn(`Stopping the server: ${err instanceof Error ? err.message : String(err)}`);
    }
    await client.dispose().catch(() => undefined);
  }

  async restart(): Promise<void> {
    if (this.starting) await this.starting.catch(() => undefined);
    log().info('Restarting the Benchwright server.');
    await this.stop();
    await this.start();
  }

  /** workspace/executeCommand on the server; undefined (and a message) when it is not running. */
  async execute<T>(command: string, args: unknown[], token?: vscode.CancellationToken): Promise<T | undefined> {
    const client = this.running;
    if (!client) {
      void notify('error', 'Benchwright: the language server is not running. Check the Benchwright output, then run "Benchwright: Restart Server".', 'Show Log');
      return undefined;
    }
    return client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args }, token) as Promise<T>;
  }

  dispose(): void {
    void this.stop();
  }
}
