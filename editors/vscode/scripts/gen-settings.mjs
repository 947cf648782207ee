// Regenerate package.json `contributes.configuration.properties` from src/common/settings.ts.
// Run after editing the settings table: `node scripts/gen-settings.mjs` (a unit test checks they agree).
import { build } from 'esbuild';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const here = path.dirname(new URL(import.meta.url).pathname);
const root = path.resolve(here, '..');
const tmp = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bw-gen-')), 'settings.mjs');
await build({ entryPoints: [path.join(root, 'src/common/settings.ts')], bundle: true, platform: 'node', format: 'esm', outfile: tmp, logLevel: 'warning' });
const { SETTINGS, toJsonSchema } = await import(pathToFileURL(tmp).href);
const file = path.join(root, 'package.json');
const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
const props = {};
SETTINGS.forEach((s, i) => { props[`benchwright.${s.key}`] = { ...toJsonSchema(s), order: i }; });
pkg.contributes.configuration.properties = props;
fs.writeFileSync(file, JSON.stringify(pkg, null, 2) + '\n');
console.log(`package.json: ${SETTINGS.length} settings`);
