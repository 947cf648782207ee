/** Status-bar text for the latest coverage, server state and restriction. Pure. */
import type { CoverageParams, ServerState, SimStatus, StatusParams } from './types';

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

/** What the server persistently does not do (untrusted workspace, no OS sandbox), from `benchwright/status`. */
export interface Restriction {
  /** Short, for the status-bar text: `lint only (untrusted workspace)`. */
  text: string;
  /** Why and what to do, for the tooltip. */
  detail: string;
}

/** The restriction a status carries; undefined when it carries none (every status replaces the last). */
export function restrictionOf(params: StatusParams): Restriction | undefined {
  const text = (params.restriction ?? '').trim();
  return text ? { text, detail: (params.restrictionDetail ?? '').trim() } : undefined;
}

/**
 * The status-bar view: coverage (or the state) with the restriction, if any, in the text
 * ("Benchwright: lint only (untrusted workspace)", "Benchwright: 87 % · 12 holes · no OS sandbox"),
 * its detail first in the tooltip, and at least a warning tone.
 */
export function statusView(coverage: CoverageParams | undefined, state: ServerState = 'idle', message = '',
  restriction?: Restriction): StatusView {
  const view = baseView(coverage, state, message);
  if (!restriction) return view;
  const why = `Benchwright: ${restriction.detail || restriction.text}`;
  const tone = view.tone === 'error' ? 'error' : 'warning';
  if (coverage) return { text: `${view.text} · ${restriction.text}`, tooltip: `${why}\n${view.tooltip}`, tone };
  // Without coverage the usual tooltip ("save an RTL file to simulate…") may not hold: the detail says what does.
  const spinner = view.text.startsWith('$(sync~spin) ') ? '$(sync~spin) ' : '';
  return { text: `${spinner}Benchwright: ${restriction.text}`, tooltip: message ? `${why}\n${message}` : why, tone };
}

function baseView(coverage: CoverageParams | undefined, state: ServerState, message: string): StatusView {
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
      tooltip: `${coverage.design}: ${word}${coverage.detail ? ` — ${coverage.detail}` : ''}${testbenchLine(coverage)}\nClick for the report.`,
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
      (metrics ? `\n${metrics}` : '') + testbenchLine(coverage) + (message ? `\n${message}` : '') +
      '\nClick for the coverage report.',
    tone: target !== undefined && overall < target ? 'warning' : 'normal',
  };
}

/** `\nTestbench: tb_x.v (the repository's own testbench (…))`, or '' when the server did not say. */
export function testbenchLine(coverage: CoverageParams): string {
  const source = (coverage.testbenchSource ?? '').trim();
  if (!source) return '';
  const uri = coverage.testbenchUri ?? '';
  const name = uri ? decodeURIComponent(uri.slice(uri.lastIndexOf('/') + 1)) : 'testbench';
  return `\nTestbench: ${name} (${source})`;
}
