/** Append-only JSON-lines event log for end-to-end tests (enabled by $BENCHWRIGHT_E2E_MARKER). */
import * as fs from 'node:fs';
import * as path from 'node:path';

export function writeMarker(file: string | undefined, event: string, data: Record<string, unknown> = {}): void {
  if (!file) return;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.appendFileSync(file, JSON.stringify({ event, time: new Date().toISOString(), ...data }) + '\n');
  } catch {
    // A test aid must never break the extension.
  }
}
