/** Status-bar text for the latest coverage and server state. Pure. */
import type { CoverageParams, ServerState, SimStatus } from './types';

export interface StatusView {
  text: string;
  tooltip: string;
  /** Drives the item's background: error for a failed run, warning below target. */
  tone: 'normal' | 'warning' | 'error';
}

const STATUS_WORDS: Record<SimStatus, string> = {
  ok: 'ok',
  compile_error: 'compile error',
  runtime_error: 'runtime error',
  timeout: 'timeout',
  coverage_error: 'coverage error',
};

/** "87 %": floor, so 89.9 never reads as a met 90 % target. */
export function formatPercent(value: number): string {
  return `${Math.floor(value + 1e-9)} %`;
}

export function holesText(holes: number): string {
  return `${holes} ${holes === 1 ? 'hole' : 'holes'}`;
}

export function statusView(coverage: CoverageParams | undefined, state: ServerState = 'idle', message = ''): StatusView {
  const busy: Partial<Record<ServerState, string>> = { linting: 'linting', simulating: 'simulating', generating: 'generating' };
  const spinner = busy[state] ? '$(sync~spin) ' : '';
  if (!coverage) {
    return {
      text: `${spinner}Benchwright${busy[state] ? `: ${busy[state]}…` : ''}`,
      tooltip: message || 'Benchwright: save an RTL file to simulate its testbench with coverage.',
      tone: 'normal',
    };
  }
  const target = coverage.summary?.target;
  const overall = coverage.summary?.overall;
  if (coverage.status !== 'ok' || overall === null || overall === undefined) {
    const word = coverage.status === 'ok' ? 'no coverage' : STATUS_WORDS[coverage.status] ?? coverage.status;
    return {
      text: `${spinner}Benchwright: ${word}`,
      tooltip: `${coverage.design}: ${word}${coverage.detail ? ` — ${coverage.detail}` : ''}\nClick for the report.`,
      tone: 'error',
    };
  }
  const metrics = Object.entries(coverage.summary.metrics ?? {})
    .filter(([, m]) => m && m.total > 0)
    .map(([k, m]) => `${k} ${m!.covered}/${m!.total}`)
    .join(' · ');
  return {
    text: `${spinner}Benchwright: ${formatPercent(overall)} · ${holesText(coverage.holes)}`,
    tooltip: `${coverage.design}: ${overall.toFixed(1)} % overall (target ${target ?? '?'} %)` +
      (metrics ? `\n${metrics}` : '') + (message ? `\n${message}` : '') + '\nClick for the coverage report.',
    tone: target !== undefined && overall < target ? 'warning' : 'normal',
  };
}
