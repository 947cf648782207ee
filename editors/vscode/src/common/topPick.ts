/**
 * The top-module picker's pure parts: the notification text and the quick-pick items of a
 * `benchwright/ambiguousTop` notification (docs/protocol.md).
 */
import type { AmbiguousTopParams, TopCandidate } from './types';

export const PICK_TOP = 'Pick top…';

/** `name (file:line)` with a 1-based line. */
export function candidateLabel(c: TopCandidate): string {
  return `${c.name} (${baseName(c.uri)}:${c.line + 1})`;
}

function baseName(uri: string): string {
  const path = decodeURIComponent(uri.replace(/^[a-z]+:\/\//i, ''));
  return path.slice(path.lastIndexOf('/') + 1);
}

/** The notification text: the server's message, else one built from the candidates. */
export function ambiguityMessage(params: AmbiguousTopParams): string {
  if (params.message && params.message.trim()) return `Benchwright: ${params.message.trim()}`;
  const doc = baseName(params.uri);
  return `Benchwright: ${params.candidates.length} modules could be the top of ${doc}'s design: ` +
    `${params.candidates.map(candidateLabel).join(', ')}.`;
}

export interface TopItem {
  label: string;
  description: string;
  /** The module name to write to the setting. */
  name: string;
}

/** Quick-pick items, one per candidate, in the server's order. */
export function topItems(params: AmbiguousTopParams): TopItem[] {
  return params.candidates.map((c) => ({ label: c.name, description: `${baseName(c.uri)}:${c.line + 1}`, name: c.name }));
}

/** Whether a notification payload has what the picker needs. */
export function validAmbiguity(params: unknown): params is AmbiguousTopParams {
  const p = params as Partial<AmbiguousTopParams> | null;
  return !!p && typeof p.uri === 'string' && Array.isArray(p.candidates) && p.candidates.length >= 2 &&
    p.candidates.every((c) => c && typeof c.name === 'string' && typeof c.uri === 'string' && typeof c.line === 'number');
}
