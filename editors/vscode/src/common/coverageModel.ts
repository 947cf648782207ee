/**
 * `benchwright/coverage` payload → the model the Test Coverage API renders. Pure.
 *
 * Mapping onto VS Code's three coverage kinds:
 * - statements  ← `line` points (one statement per source line; executed = the smallest count
 *   of the line's points, so a line is green only when every block on it ran);
 * - branches    ← `branch` points, and `expr` points (condition coverage), attached to the
 *   statement on their line (a line holding only branch/expr points gets a statement whose
 *   count is the largest branch count, i.e. "the line was reached");
 * - declarations ← `toggle` points (one per signal bit, named by the point's comment).
 * The file totals count points exactly as Verilator does, so the Explorer percentage agrees with
 * the server's per-metric numbers.
 */
import type { CoverageKind, CoverageParams, CoveragePoint } from './types';

export interface Count {
  covered: number;
  total: number;
}

export interface BranchDetail {
  executed: number;
  kind: 'branch' | 'expr';
  label: string;
}

export interface StatementDetail {
  /** 1-based line. */
  line: number;
  executed: number;
  branches: BranchDetail[];
}

export interface DeclarationDetail {
  name: string;
  line: number;
  executed: number;
}

export interface FileModel {
  uri: string;
  statements: Count;
  branches: Count;
  declarations: Count;
  details: StatementDetail[];
  declarationDetails: DeclarationDetail[];
  /** Lines (1-based) holding at least one uncovered point. */
  uncoveredLines: number[];
}

export interface CoverageModel {
  design: string;
  ok: boolean;
  overall: number | null;
  holes: number;
  files: FileModel[];
}

const covered = (p: CoveragePoint): boolean => p.count >= 1;

function count(points: CoveragePoint[]): Count {
  return { covered: points.filter(covered).length, total: points.length };
}

function labelOf(p: CoveragePoint): string {
  const what = p.comment && p.comment.length > 0 ? p.comment : p.kind;
  return p.kind === 'expr' ? `expr: ${what}` : what;
}

/** Build the per-file model of one coverage notification. */
export function toFileModel(uri: string, points: readonly CoveragePoint[], enabled?: readonly CoverageKind[]): FileModel {
  const use = points.filter((p) => !enabled || enabled.includes(p.kind));
  const byKind = (k: CoverageKind): CoveragePoint[] => use.filter((p) => p.kind === k);
  const lines = byKind('line');
  const branchLike = use.filter((p) => p.kind === 'branch' || p.kind === 'expr');
  const toggles = byKind('toggle');

  const statements = new Map<number, StatementDetail>();
  for (const p of lines) {
    const s = statements.get(p.line);
    if (s) s.executed = Math.min(s.executed, p.count);
    else statements.set(p.line, { line: p.line, executed: p.count, branches: [] });
  }
  for (const p of branchLike) {
    let s = statements.get(p.line);
    if (!s) {
      s = { line: p.line, executed: 0, branches: [] };
      statements.set(p.line, s);
    }
    s.branches.push({ executed: p.count, kind: p.kind as 'branch' | 'expr', label: labelOf(p) });
  }
  for (const s of statements.values()) {
    if (!lines.some((p) => p.line === s.line)) s.executed = Math.max(0, ...s.branches.map((b) => b.executed));
  }
  const details = [...statements.values()].sort((a, b) => a.line - b.line);
  const declarationDetails = toggles
    .map((p) => ({ name: p.comment && p.comment.length > 0 ? p.comment : `toggle@${p.line}`, line: p.line, executed: p.count }))
    .sort((a, b) => a.line - b.line || a.name.localeCompare(b.name));
  const uncoveredLines = [...new Set(use.filter((p) => !covered(p)).map((p) => p.line))].sort((a, b) => a - b);
  return {
    uri,
    statements: count(lines),
    branches: count(branchLike),
    declarations: count(toggles),
    details,
    declarationDetails,
    uncoveredLines,
  };
}

/** Build the whole model; files without points are dropped. */
export function toCoverageModel(params: CoverageParams, enabled?: readonly CoverageKind[]): CoverageModel {
  const files = (params.files ?? [])
    .map((f) => toFileModel(f.uri, f.points ?? [], enabled))
    .filter((f) => f.statements.total + f.branches.total + f.declarations.total > 0);
  return {
    design: params.design,
    ok: params.status === 'ok',
    overall: params.summary?.overall ?? null,
    holes: params.holes ?? 0,
    files,
  };
}

/** Shallow shape check of an incoming notification; returns a reason string when it is malformed. */
export function validateCoverageParams(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return 'payload is not an object';
  const v = value as Record<string, unknown>;
  if (typeof v.design !== 'string') return '`design` is not a string';
  if (typeof v.status !== 'string') return '`status` is not a string';
  if (!Array.isArray(v.files)) return '`files` is not an array';
  for (const f of v.files as unknown[]) {
    const file = f as Record<string, unknown>;
    if (typeof file?.uri !== 'string' || !Array.isArray(file.points)) return 'a `files` entry lacks `uri` or `points`';
  }
  if (v.summary === null || typeof v.summary !== 'object') return '`summary` is not an object';
  return undefined;
}
