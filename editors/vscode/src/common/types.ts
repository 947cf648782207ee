/** TypeScript mirror of the payloads in docs/protocol.md. */

export type CoverageKind = 'line' | 'branch' | 'toggle' | 'expr';

export type SimStatus = 'ok' | 'compile_error' | 'runtime_error' | 'timeout' | 'coverage_error';

export interface MetricSummary {
  covered: number;
  total: number;
  percent: number | null;
}

export interface CoverageSummary {
  /** Percent 0–100; null without coverage. */
  overall: number | null;
  target: number;
  metrics: Partial<Record<CoverageKind, MetricSummary>>;
}

export interface CoveragePoint {
  /** 1-based line. */
  line: number;
  kind: CoverageKind;
  count: number;
  comment?: string;
}

export interface CoverageFile {
  uri: string;
  points: CoveragePoint[];
}

/** `benchwright/coverage` notification params. */
export interface CoverageParams {
  design: string;
  top: string;
  rootUri: string;
  testbenchUri: string | null;
  version: number | null;
  status: SimStatus;
  detail?: string;
  summary: CoverageSummary;
  holes: number;
  files: CoverageFile[];
  lcovPath: string | null;
  buildSeconds?: number;
  runSeconds?: number;
  /** Where the testbench came from (`design.toml`, `the repository's own testbench (…)`, …). */
  testbenchSource?: string;
}

/** One possible top module of `benchwright/ambiguousTop`. */
export interface TopCandidate {
  name: string;
  uri: string;
  /** 0-based line of the declaration. */
  line: number;
}

/** `benchwright/ambiguousTop` notification params. */
export interface AmbiguousTopParams {
  uri: string;
  candidates: TopCandidate[];
  setting: string;
  message?: string;
}

export type ServerState = 'idle' | 'linting' | 'simulating' | 'generating';

/** `benchwright/status` notification params. */
export interface StatusParams {
  state: ServerState;
  message?: string;
  /** What the server persistently does not do, e.g. `lint only (untrusted workspace)`; '' or absent: nothing. */
  restriction?: string;
  /** Why, and what to do about it (tooltip). */
  restrictionDetail?: string;
}

/** Result of benchwright.generateTestbench / benchwright.improveCoverage. */
export interface ProposalResult {
  applied: boolean;
  testbenchUri?: string | null;
  overall?: number | null;
  /** True when the run was cancelled (nothing was proposed). */
  cancelled?: boolean;
  /** Why nothing was proposed, when nothing was. */
  message?: string;
}

export interface ReportResult {
  markdown: string;
}

export interface DoctorResult {
  text: string;
}
