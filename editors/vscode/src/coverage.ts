/**
 * Coverage in VS Code's native Test Coverage API: one test item per design, one coverage run per
 * `benchwright/coverage` notification, statement/branch/declaration details loaded on demand.
 */
import * as vscode from 'vscode';
import { toCoverageModel, type FileModel } from './common/coverageModel';
import type { CoverageParams } from './common/types';
import * as api from './vscodeapi';

class BenchwrightFileCoverage extends vscode.FileCoverage {
  constructor(readonly model: FileModel) {
    super(
      vscode.Uri.parse(model.uri),
      new vscode.TestCoverageCount(model.statements.covered, model.statements.total),
      model.branches.total > 0 ? new vscode.TestCoverageCount(model.branches.covered, model.branches.total) : undefined,
      model.declarations.total > 0 ? new vscode.TestCoverageCount(model.declarations.covered, model.declarations.total) : undefined,
    );
  }
}

/** Details of one file for the gutter and the hover. */
export function detailsOf(model: FileModel): vscode.FileCoverageDetail[] {
  const details: vscode.FileCoverageDetail[] = model.details.map((s) => {
    const line = Math.max(0, s.line - 1);
    const branches = s.branches.map((b) => new vscode.BranchCoverage(b.executed, new vscode.Position(line, 0), b.label));
    return new vscode.StatementCoverage(s.executed, new vscode.Range(line, 0, line, Number.MAX_SAFE_INTEGER), branches);
  });
  for (const d of model.declarationDetails) {
    details.push(new vscode.DeclarationCoverage(d.name, d.executed, new vscode.Position(Math.max(0, d.line - 1), 0)));
  }
  return details;
}

export class CoverageView implements vscode.Disposable {
  private readonly controller: vscode.TestController;
  private readonly profile: vscode.TestRunProfile;
  private waiting: Array<(p: CoverageParams) => void> = [];

  /** `simulate` asks the server for a fresh simulation of a design (by its root URI). */
  constructor(private readonly simulate: (rootUri: string | undefined) => Promise<boolean>) {
    this.controller = api.createTestController('benchwright', 'Benchwright coverage');
    this.profile = this.controller.createRunProfile('Simulate with coverage', vscode.TestRunProfileKind.Coverage,
      (request, token) => this.runHandler(request, token), true);
    this.profile.loadDetailedCoverage = async (_run, coverage) =>
      coverage instanceof BenchwrightFileCoverage ? detailsOf(coverage.model) : [];
  }

  private item(params: CoverageParams): vscode.TestItem {
    const id = params.rootUri || params.design;
    let item = this.controller.items.get(id);
    if (!item) {
      const uri = params.testbenchUri ? vscode.Uri.parse(params.testbenchUri) : undefined;
      item = this.controller.createTestItem(id, params.design, uri);
      item.description = params.top !== params.design ? `top ${params.top}` : undefined;
      this.controller.items.add(item);
    }
    return item;
  }

  /** Render one notification as a finished coverage run; returns the number of files added. */
  show(params: CoverageParams): number {
    const item = this.item(params);
    const run = this.controller.createTestRun(new vscode.TestRunRequest([item], undefined, this.profile), `Benchwright: ${params.design}`, false);
    run.started(item);
    const model = toCoverageModel(params);
    for (const file of model.files) run.addCoverage(new BenchwrightFileCoverage(file));
    const millis = ((params.buildSeconds ?? 0) + (params.runSeconds ?? 0)) * 1000;
    if (params.status === 'ok') {
      run.passed(item, millis);
    } else {
      const message = new vscode.TestMessage(`${params.status}: ${params.detail ?? ''}`.trim());
      if (params.status === 'compile_error' || params.status === 'coverage_error') run.errored(item, message, millis);
      else run.failed(item, message, millis);
    }
    run.end();
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve(params);
    return model.files.length;
  }

  /** "Run with coverage" from the Testing view: ask for a simulation and wait for its notification. */
  private async runHandler(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    const items = request.include ?? [...iterate(this.controller.items)];
    const roots = items.length > 0 ? items.map((i) => i.id) : [undefined];
    for (const root of roots) {
      if (token.isCancellationRequested) return;
      const next = new Promise<CoverageParams | undefined>((resolve) => {
        this.waiting.push(resolve);
        token.onCancellationRequested(() => resolve(undefined));
        setTimeout(() => resolve(undefined), 10 * 60_000);
      });
      if (await this.simulate(root)) await next;
    }
  }

  dispose(): void {
    this.controller.dispose();
  }
}

function* iterate(collection: vscode.TestItemCollection): Generator<vscode.TestItem> {
  const items: vscode.TestItem[] = [];
  collection.forEach((item) => items.push(item));
  yield* items;
}
