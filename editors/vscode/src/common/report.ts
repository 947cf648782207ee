/** A local markdown report from the last notification, used when the server cannot give one. Pure. */
import type { CoverageParams } from './types';
import { toCoverageModel } from './coverageModel';

export function fallbackReport(cov: CoverageParams | undefined): string {
  if (!cov) return '# Benchwright coverage\n\nNo coverage yet: save an RTL file of a design to simulate its testbench.\n';
  const lines = [`# Benchwright coverage: ${cov.design}`, ''];
  lines.push(`Status: **${cov.status}**${cov.detail ? ` — ${cov.detail}` : ''}`, '');
  const overall = cov.summary?.overall;
  lines.push(`Overall: **${overall === null || overall === undefined ? 'n/a' : overall.toFixed(1) + ' %'}** (target ${cov.summary?.target ?? '?'} %), ${cov.holes} holes`, '');
  lines.push('| metric | covered | total | percent |', '|---|---:|---:|---:|');
  for (const [k, m] of Object.entries(cov.summary?.metrics ?? {})) {
    if (!m) continue;
    lines.push(`| ${k} | ${m.covered} | ${m.total} | ${m.percent === null ? 'n/a' : m.percent.toFixed(1)} |`);
  }
  lines.push('');
  for (const f of toCoverageModel(cov).files) {
    if (f.uncoveredLines.length === 0) continue;
    lines.push(`- \`${f.uri}\`: uncovered lines ${f.uncoveredLines.join(', ')}`);
  }
  return lines.join('\n') + '\n';
}
