#!/usr/bin/env node
// End to end in a real VS Code (code-server 4.100.3 = VS Code 1.100.3) driven by headless
// Chromium through playwright-core. Flows: open → lint, save → coverage (status bar + Test
// Coverage), Improve Coverage → review/apply the proposed edit, syntax error → Problems count,
// then a second workspace without design.toml whose shared FIFO has two possible tops: the
// notification, the top picker writing benchwright.project.top, coverage of the picked top;
// then a public repository as cloned, with no testbench Benchwright can run: saving its RTL has
// the built-in engine write one under .benchwright/generated/, and its coverage shows; then
// regression on save: a design with a kept testbench that carries recorded checks
// (tests/data/regression/apb_adder, written by `benchwright run`), one RTL line changed and saved,
// the mismatch warning at the port, the quick fix "Accept new behaviour", the testbench edit
// applied (dirty, undoable), saved, and the warnings gone.
//
// Usage: node scripts/e2e.mjs --code-server <entry.js> --vsix <file> [--python <py>] [--chromium <bin>] [--artifacts <dir>]
//          [--cloned <repo folder> --cloned-file <its RTL file to save> --cloned-sim-calls <n>] [--only-cloned] [--only-accept]
// --only-cloned runs just the cloned-repository flow (e.g. on another repository, for a screenshot);
// --only-accept just the regression flow (7).
// Screenshots go to the artifacts dir (default test-artifacts/); their paths are printed.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const REPO = path.resolve(ROOT, '../..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const CODE_SERVER = arg('code-server', process.env.BENCHWRIGHT_CODE_SERVER);
const VSIX = path.resolve(arg('vsix', path.join(ROOT, 'benchwright-0.1.0.vsix')));
const PYTHON = arg('python', process.env.BENCHWRIGHT_PYTHON ?? path.join(REPO, '.venv/bin/python'));
const CHROMIUM = arg('chromium', process.env.BENCHWRIGHT_CHROMIUM ?? '/usr/bin/chromium');
const ARTIFACTS = path.resolve(arg('artifacts', path.join(ROOT, 'test-artifacts')));
// The cloned repository of flow 6 (default: pulp-platform/apb_gpio as cloned, tests/data/server/repos/README.md).
const CLONED = path.resolve(arg('cloned', path.join(REPO, 'tests/data/server/repos/apb_gpio')));
const CLONED_FILE = arg('cloned-file', 'rtl/apb_gpio.sv');
const CLONED_SIM_CALLS = Number(arg('cloned-sim-calls', '12'));
const ONLY_CLONED = process.argv.includes('--only-cloned');
// The design of flow 7 and its kept testbench (tests/data/regression/README.md says how it was made).
const ACCEPT = path.join(REPO, 'tests/data/regression/apb_adder');
const ONLY_ACCEPT = process.argv.includes('--only-accept');
const FIRST_WS = ONLY_ACCEPT ? 'accept' : ONLY_CLONED ? 'cloned' : 'main';
const T0 = Date.now();
const log = (msg) => console.log(`[e2e +${((Date.now() - T0) / 1000).toFixed(1)}s] ${msg}`);

if (!CODE_SERVER || !fs.existsSync(CODE_SERVER)) throw new Error(`code-server entry not found: ${CODE_SERVER}`);
for (const [what, file] of [['vsix', VSIX], ['python', PYTHON], ['chromium', CHROMIUM]]) {
  if (!fs.existsSync(file)) throw new Error(`${what} not found: ${file}`);
}
fs.mkdirSync(ARTIFACTS, { recursive: true });

// A scratch workspace: a copy of the bundled example design and its thin testbench.
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bw-e2e-'));
const ws = path.join(scratch, 'traffic_light');
fs.cpSync(path.join(REPO, 'examples/traffic_light'), ws, { recursive: true });
fs.mkdirSync(path.join(ws, '.vscode'));
// Workspace settings (resource/window scope). python.interpreter is machine-scoped (protocol.md),
// which VS Code ignores in workspace settings, so it goes into the user settings below too.
fs.writeFileSync(path.join(ws, '.vscode/settings.json'), JSON.stringify({
  'benchwright.python.interpreter': PYTHON,
  'benchwright.policy.rounds': 1,
  'benchwright.showNotifications': 'onError',
  'files.autoSave': 'off',
}, null, 2));
// The second workspace: a repository without design.toml where rtl/fifo.v has two possible tops.
const ws2 = path.join(scratch, 'two_tops');
fs.cpSync(path.join(REPO, 'tests/data/sim/project/two_tops'), ws2, { recursive: true });
fs.mkdirSync(path.join(ws2, '.vscode'));
fs.writeFileSync(path.join(ws2, '.vscode/settings.json'), JSON.stringify({
  'benchwright.python.interpreter': PYTHON,
  'benchwright.showNotifications': 'onError',
  'files.autoSave': 'off',
}, null, 2));
// The third workspace: a repository as cloned (only workspace settings added, as a user would).
const ws3 = path.join(scratch, path.basename(CLONED));
fs.cpSync(CLONED, ws3, { recursive: true });
fs.chmodSync(ws3, 0o755);
fs.mkdirSync(path.join(ws3, '.vscode'), { recursive: true });
fs.writeFileSync(path.join(ws3, '.vscode/settings.json'), JSON.stringify({
  'benchwright.python.interpreter': PYTHON,
  'benchwright.showNotifications': 'onError',
  'benchwright.policy.simCalls': CLONED_SIM_CALLS,
  'files.autoSave': 'off',
}, null, 2));
// The fourth workspace: a design with a kept testbench that checks (as cloned: no design.toml).
const ws4 = path.join(scratch, path.basename(ACCEPT));
fs.cpSync(ACCEPT, ws4, { recursive: true });
fs.mkdirSync(path.join(ws4, '.vscode'));
fs.writeFileSync(path.join(ws4, '.vscode/settings.json'), JSON.stringify({
  'benchwright.python.interpreter': PYTHON,
  'benchwright.showNotifications': 'onError',
  'files.autoSave': 'off',
}, null, 2));
const firstWs = { main: ws, cloned: ws3, accept: ws4 }[FIRST_WS];
const userData = path.join(scratch, 'user-data');
const extDir = path.join(scratch, 'extensions');
fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
fs.writeFileSync(path.join(userData, 'User/settings.json'), JSON.stringify({
  'benchwright.python.interpreter': PYTHON,
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'update.mode': 'none',
  'chat.commandCenter.enabled': false,
  'window.commandCenter': false,
  'editor.minimap.enabled': false,
  'git.enabled': false,
}, null, 2));
const marker = path.join(scratch, 'marker.jsonl');
const env = {
  ...process.env,
  BENCHWRIGHT_E2E_MARKER: marker,
  EXTENSIONS_GALLERY: JSON.stringify({ serviceUrl: 'http://127.0.0.1:9/gallery', itemUrl: 'http://127.0.0.1:9/item' }),
};
const common = ['--extensions-dir', extDir, '--user-data-dir', userData];

log(`installing ${path.basename(VSIX)} into code-server`);
const install = spawnSync(process.execPath, [CODE_SERVER, ...common, '--install-extension', VSIX], { env, encoding: 'utf8' });
if (install.status !== 0 || !/successfully installed/i.test(install.stdout + install.stderr)) {
  throw new Error(`--install-extension failed (${install.status}):\n${install.stdout}\n${install.stderr}`);
}
log(install.stdout.trim().split('\n').pop());

const port = await new Promise((resolve) => {
  const srv = net.createServer();
  srv.listen(0, '127.0.0.1', () => { const p = srv.address().port; srv.close(() => resolve(p)); });
});
const csLog = fs.openSync(path.join(ARTIFACTS, 'code-server.log'), 'w');
const cs = spawn(process.execPath, [CODE_SERVER, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry',
  '--disable-update-check', '--disable-workspace-trust', '--disable-getting-started-override', ...common, firstWs],
{ env, stdio: ['ignore', csLog, csLog], detached: true });

let browser;
const events = () => (fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);
async function waitMarker(pred, what, ms) {
  const deadline = Date.now() + ms;
  for (;;) {
    const hit = events().find((e, i) => pred(e, i));
    if (hit) return hit;
    if (Date.now() > deadline) throw new Error(`timed out (${ms / 1000}s) waiting for ${what}; marker events: ${events().map((e) => e.event).join(', ')}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
const shots = [];
async function shot(page, name) {
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file });
  shots.push(file);
  log(`screenshot ${file}`);
}
// The Monaco editor of the active tab.
const activeEditor = (page) => page.locator('.editor-group-container.active .editor-instance .monaco-editor').first();
// Go to a 1-based line of the active editor (Ctrl+G), cursor at its end.
async function gotoLine(page, mod, line) {
  await page.keyboard.press(`${mod}+G`);
  await page.locator('.quick-input-widget input').first().waitFor({ timeout: 10_000 });
  await page.keyboard.type(String(line));
  await page.keyboard.press('Enter');
  await page.keyboard.press('End');
}
// Whether a view line holding `needle` carries a squiggle of `kind` (warning, error) in the active editor.
const squiggleOn = (page, needle, kind) => page.evaluate(([n, k]) => {
  const ed = document.querySelector('.editor-group-container.active .editor-instance .monaco-editor');
  const line = [...(ed?.querySelectorAll('.view-lines .view-line') ?? [])].find((l) => l.textContent.includes(n));
  if (!line) return false;
  return [...ed.querySelectorAll('.view-overlays > div')].some((d) => d.style.top === line.style.top && d.querySelector(`.squiggly-${k}`));
}, [needle, kind]);

// Flow 7: regression on save. A design whose kept testbench carries recorded checks (as `benchwright
// run` wrote it) → change one RTL line so an output behaves differently → save → the mismatch
// warning at the output's declaration (first failing read, what it returned and what was recorded)
// → quick fix "Accept new behaviour" → the re-recorded testbench arrives as an edit to apply: dirty,
// undoable, nothing written to disk → save it → the run passes and the warnings go.
async function flowAccept(page, mod, navigate) {
  const t7 = Date.now();
  const before7 = events().length;
  if (navigate) {
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws4)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await waitMarker((e, i) => i >= before7 && e.event === 'serverStarted', 'server start in the regression workspace', 120_000);
  }
  const rtlPath = path.join(ws4, 'rtl/apb_adder.sv');
  const tbPath = path.join(ws4, 'tb/tb_apb_adder.sv');
  const rtlUri7 = new URL(`file://${rtlPath}`).href;
  const tbBefore = fs.readFileSync(tbPath, 'utf8');
  const rtlLines = fs.readFileSync(rtlPath, 'utf8').split('\n');
  const sumLine = rtlLines.findIndex((l) => l.includes('assign sum = a + b;')) + 1;
  const portLine = rtlLines.findIndex((l) => /\boutput\b.*\bprdata\b/.test(l)) + 1;
  if (!sumLine || !portLine) throw new Error('flow 7: the fixture no longer has `assign sum = a + b;` and the prdata port');
  await page.locator('.monaco-workbench').click({ position: { x: 800, y: 500 } }).catch(() => undefined);
  await page.keyboard.press(`${mod}+P`);
  await page.keyboard.type('apb_adder.sv');
  await page.waitForTimeout(800);
  await page.keyboard.press('Enter');
  await page.locator('.tab.active', { hasText: 'apb_adder.sv' }).waitFor({ timeout: 30_000 });
  await activeEditor(page).waitFor({ timeout: 30_000 });
  // The edit: the adder subtracts now (one line), then save.
  await gotoLine(page, mod, sumLine);
  await page.keyboard.press('Home');
  await page.keyboard.press('Shift+End');
  await page.keyboard.type('assign sum = a - b;');
  const save7 = events().length;
  await page.keyboard.press(`${mod}+S`);
  const cov7 = await waitMarker((e, i) => i >= save7 && e.event === 'coverage' && e.design === 'apb_adder', 'the kept testbench run after the edit', 240_000);
  log(`flow 7: run after the edit: ${JSON.stringify({ status: cov7.status, overall: cov7.overall, testbench: cov7.testbenchSource })}`);
  if (cov7.status !== 'ok') throw new Error(`flow 7: the kept testbench did not run: ${JSON.stringify(cov7)}`);
  const mismatches = (e) => (e.items ?? []).filter((d) => d.code === 'check-mismatch');
  const diag7 = await waitMarker((e, i) => i >= save7 && e.event === 'diagnostics' && e.uri === rtlUri7 && mismatches(e).length > 0,
    'the check-mismatch warnings', 60_000);
  for (const d of mismatches(diag7)) log(`flow 7: line ${d.line + 1}: ${d.message}`);
  const atPort = mismatches(diag7).find((d) => d.line === portLine - 1);
  if (!atPort) throw new Error(`flow 7: no check-mismatch at the prdata port (line ${portLine}): ${JSON.stringify(diag7.items)}`);
  if (!/read 3: bus_read\(8\) returned 0fffffea, the recorded run 10000016/.test(atPort.message)) {
    throw new Error(`flow 7: the warning at prdata does not name the first failing read with now/was: ${atPort.message}`);
  }
  if (atPort.severity !== 'warning') throw new Error(`flow 7: severity ${atPort.severity}`);
  // The failing read's place in the testbench rides along (related information): the sweep with its recorded values.
  const sweepLine = tbBefore.split('\n').findIndex((l) => l.includes('bus_sweep_is(0, '));
  const origin = atPort.related?.[0];
  if (!origin || origin.file !== 'tb_apb_adder.sv' || origin.line !== sweepLine || origin.message !== "read 3: the recorded run returned 32'h10000016") {
    throw new Error(`flow 7: the warning does not point at the read in the testbench (line ${sweepLine + 1}): ${JSON.stringify(atPort.related)}`);
  }
  // What a user sees: the squiggle on the port's line, the Problems panel, the hover.
  let squiggled = false;
  for (let i = 0; i < 40 && !squiggled; i++) {
    squiggled = await squiggleOn(page, 'prdata,', 'warning');
    if (!squiggled) await page.waitForTimeout(250);
  }
  if (!squiggled) throw new Error('flow 7: no warning squiggle on the prdata line');
  await page.keyboard.press(`${mod}+Shift+M`);
  const problemRow = page.locator('.markers-panel .monaco-list-row', { hasText: 'bus_read(8) returned 0fffffea' });
  await problemRow.first().waitFor({ timeout: 30_000 });
  log(`flow 7: Problems: "${(await problemRow.first().innerText()).replace(/\s+/g, ' ').trim()}"`);
  const originRow = page.locator('.markers-panel .monaco-list-row', { hasText: "the recorded run returned 32'h10000016" });
  await originRow.first().waitFor({ timeout: 10_000 });
  log(`flow 7: Problems, below it: "${(await originRow.first().innerText()).replace(/\s+/g, ' ').trim()}"`);
  // The quick fix, from the cursor on the port's line (Ctrl+.).
  await activeEditor(page).click({ position: { x: 400, y: 40 } });
  await gotoLine(page, mod, portLine);
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press(`${mod}+.`);
  const fix = page.locator('.action-widget .monaco-list-row', { hasText: 'Accept new behaviour' });
  await fix.first().waitFor({ timeout: 30_000 });
  await page.waitForTimeout(500);
  await shot(page, '7-check-mismatch');
  const accept7 = events().length;
  // The menu blocks pointer events while it is shown: pick the focused item with the keyboard.
  for (let i = 0; i < 4 && await page.locator('.action-widget .monaco-list-row.focused', { hasText: 'Accept new behaviour' }).count() === 0; i++) {
    await page.keyboard.press('ArrowDown');
  }
  await page.keyboard.press('Enter');
  await waitMarker((e, i) => i >= accept7 && e.event === 'command' && e.command === 'benchwright.acceptNewBehaviour', 'the acceptNewBehaviour command', 20_000);
  await waitMarker((e, i) => i >= accept7 && e.event === 'proposal', 'the re-recorded testbench (workspace/applyEdit)', 180_000);
  const toast7 = page.locator('.notification-toast', { hasText: 'tb_apb_adder.sv' }).filter({ has: page.locator('.monaco-button', { hasText: 'Apply' }) });
  await toast7.first().waitFor({ timeout: 30_000 });
  log(`flow 7: "${(await toast7.first().locator('.notification-list-item-message').first().innerText()).trim()}"`);
  await toast7.first().locator('.monaco-button', { hasText: /^Apply$/ }).click();
  const applied7 = await waitMarker((e, i) => i >= accept7 && e.event === 'proposalApplied', 'the re-recorded checks applied', 30_000);
  if (!applied7.applied) throw new Error(`flow 7: not applied: ${JSON.stringify(applied7)}`);
  const result7 = await waitMarker((e, i) => i >= accept7 && e.event === 'commandResult', 'acceptNewBehaviour result', 30_000);
  log(`flow 7: accept result: ${JSON.stringify(result7.result)}`);
  // Reviewable and undoable: the testbench is open and dirty, the disk still has the old checks.
  await page.locator('.tab.active', { hasText: 'tb_apb_adder.sv' }).waitFor({ timeout: 30_000 });
  const dirty = async (want) => {
    for (let i = 0; i < 40 && (await page.locator('.tab.active.dirty').count() > 0) !== want; i++) await page.waitForTimeout(250);
    return (await page.locator('.tab.active.dirty').count() > 0) === want;
  };
  if (fs.readFileSync(tbPath, 'utf8') !== tbBefore) throw new Error('flow 7: the testbench was written to disk before it was saved');
  const wasDirty = await dirty(true);
  await activeEditor(page).click({ position: { x: 400, y: 200 } });
  await page.keyboard.press(`${mod}+Z`);
  const undone = await dirty(false);
  await page.keyboard.press(`${mod}+Shift+Z`);
  const redone = await dirty(true);
  if (!wasDirty || !undone || !redone) throw new Error(`flow 7: undo/redo of the accepted checks: dirty ${wasDirty}, clean after undo ${undone}, dirty after redo ${redone}`);
  log('flow 7: the testbench edit is applied unsaved; undo → saved text, redo → the new checks');
  // Review it as a diff against the saved file, then save it.
  await page.keyboard.press('F1');
  await page.keyboard.type('File: Compare Active File with Saved');
  await page.waitForTimeout(800);
  await page.keyboard.press('Enter');
  await page.locator('.editor-instance .monaco-diff-editor').first().waitFor({ timeout: 30_000 });
  await page.waitForTimeout(1500);
  await shot(page, '7b-accepted-diff');
  const save7b = events().length;
  await page.keyboard.press(`${mod}+S`);
  const cov7b = await waitMarker((e, i) => i >= save7b && e.event === 'coverage' && e.design === 'apb_adder', 'the run of the saved testbench', 240_000)
    .catch(() => undefined);
  const saved = fs.readFileSync(tbPath, 'utf8');
  if (saved === tbBefore || !saved.includes("32'h0fffffea")) throw new Error('flow 7: the saved testbench does not carry the new read value');
  if (!cov7b) throw new Error('flow 7: no run after saving the testbench');
  const cleared = await waitMarker((e, i) => i >= save7b && e.event === 'diagnostics' && e.uri === rtlUri7 && mismatches(e).length === 0,
    'the check-mismatch warnings gone', 60_000);
  await page.locator('.tab', { hasText: /^apb_adder\.sv/ }).first().click();
  for (let i = 0; i < 40 && await page.locator('.markers-panel .monaco-list-row', { hasText: 'Check failed' }).count() > 0; i++) await page.waitForTimeout(250);
  if (await page.locator('.markers-panel .monaco-list-row', { hasText: 'Check failed' }).count() > 0) throw new Error('flow 7: Problems still lists a failed check');
  if (await squiggleOn(page, 'prdata,', 'warning')) throw new Error('flow 7: the prdata line still has a squiggle');
  log(`flow 7: after saving the testbench: ${cleared.total} diagnostics, none a failed check; run ${cov7b.status}`);
  await page.waitForTimeout(1000);
  await shot(page, '7c-checks-pass');
  log(`flow 7 took ${((Date.now() - t7) / 1000).toFixed(1)} s`);
}

let failure;
try {
  for (let i = 0; ; i++) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.ok) break;
    } catch { /* not yet */ }
    if (i > 240) throw new Error('code-server did not come up in 60 s (see code-server.log)');
    await new Promise((r) => setTimeout(r, 250));
  }
  log(`code-server up on ${port}`);
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(firstWs)}`);
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  log('workbench loaded');

  const activated = await waitMarker((e) => e.event === 'activated', 'extension activation', 90_000);
  log(`activated in VS Code ${activated.version}, Test Coverage API: ${activated.hasTests}`);
  const started = await waitMarker((e) => e.event === 'serverStarted' || e.event === 'serverFailed' || (e.event === 'preflight' && !e.canStart), 'server start', 90_000);
  if (started.event !== 'serverStarted') throw new Error(`server did not start: ${JSON.stringify(started)}`);
  log(`server started: ${JSON.stringify(started.serverInfo)}`);

  const mod = process.platform === 'darwin' ? 'Meta' : 'Control';
  if (FIRST_WS === 'main') {
    // Flow 1: open → lint.
    await page.locator('.monaco-workbench').click({ position: { x: 800, y: 500 } }).catch(() => undefined);
    await page.keyboard.press(`${mod}+P`);
    await page.keyboard.type('traffic_light.sv');
    await page.waitForTimeout(800);
    await page.keyboard.press('Enter');
    const editor = page.locator('.editor-instance .monaco-editor').first();
    await editor.waitFor({ timeout: 30_000 });
    await page.locator('.tab.active', { hasText: 'traffic_light.sv' }).waitFor({ timeout: 30_000 });
    const rtlUri = new URL(`file://${path.join(ws, 'rtl/traffic_light.sv')}`).href;
    const lint = await waitMarker((e) => e.event === 'diagnostics' && e.uri === rtlUri, 'lint diagnostics on open', 60_000)
      .catch(() => undefined);
    log(lint ? `lint on open: ${lint.errors} errors, ${lint.total} diagnostics` : 'lint on open: no diagnostics event (clean file, nothing published)');

    // Flow 2: edit + save → coverage in the status bar (and the Test Coverage API).
    await editor.click({ position: { x: 300, y: 100 } });
    await page.keyboard.press(`${mod}+End`);
    await page.keyboard.type('\n// saved by the e2e test\n');
    await page.keyboard.press(`${mod}+S`);
    const cov = await waitMarker((e) => e.event === 'coverage', 'benchwright/coverage after save', 240_000);
    log(`coverage: ${JSON.stringify(cov)}`);
    if (cov.status !== 'ok') throw new Error(`simulation status ${cov.status}`);
    const statusItem = page.locator('.statusbar-item', { hasText: /Benchwright: \d+ % · \d+ holes?/ });
    await statusItem.first().waitFor({ timeout: 30_000 });
    const statusText = (await statusItem.first().innerText()).trim();
    log(`status bar: "${statusText}"`);
    if (!statusText.includes(`${Math.floor(cov.overall)} %`)) throw new Error(`status bar "${statusText}" does not show ${cov.overall}`);
    await page.waitForTimeout(1500);
    await shot(page, '1-coverage');
    // The status-bar item opens the coverage report (server markdown in a preview).
    const beforeReport = events().length;
    await statusItem.first().click();
    const report = await waitMarker((e, i) => i >= beforeReport && e.event === 'report', 'the coverage report', 30_000);
    await page.locator('.tab', { hasText: /Benchwright Coverage Report/ }).first().waitFor({ timeout: 30_000 });
    log(`report opened from the status bar (from server: ${report.fromServer}, ${report.chars} chars)`);
    // The markdown preview renders inside a webview iframe once the markdown extension is up.
    let rendered = false;
    for (let i = 0; i < 10 && !rendered; i++) {
      for (const frame of page.frames().filter((f) => f !== page.mainFrame())) {
        const text = await frame.evaluate(() => document.body?.innerText ?? '').catch(() => '');
        if (/traffic_light/.test(text) && /coverage/i.test(text)) { rendered = true; break; }
      }
      if (!rendered) await page.waitForTimeout(500);
    }
    log(`report preview rendered: ${rendered}${rendered ? '' : ' (webview iframes do not paint in headless Chromium here; the report content is checked through the marker)'}`);
    await shot(page, '1b-report');
    await page.keyboard.press(`${mod}+W`);

    // Flow 3: Improve Coverage from the palette → proposal → Apply (one undoable edit).
    const before = events().length;
    await editor.click({ position: { x: 300, y: 100 } });
    await page.keyboard.press('F1');
    await page.keyboard.type('Benchwright: Improve Coverage');
    await page.waitForTimeout(800);
    await page.keyboard.press('Enter');
    await waitMarker((e) => e.event === 'command' && e.command === 'benchwright.improveCoverage', 'improveCoverage command', 20_000);
    await waitMarker((e) => e.event === 'proposal', 'a proposal (workspace/applyEdit)', 480_000);
    const toast = page.locator('.notification-toast', { hasText: 'Benchwright:' }).filter({ has: page.locator('a.monaco-button, .monaco-button', { hasText: 'Apply' }) });
    await toast.first().waitFor({ timeout: 30_000 });
    await shot(page, '2-proposal');
    await toast.first().locator('.monaco-button', { hasText: /^Apply$/ }).click();
    const applied = await waitMarker((e) => e.event === 'proposalApplied', 'proposal applied', 30_000);
    if (!applied.applied) throw new Error(`proposal not applied: ${JSON.stringify(applied)}`);
    const result = await waitMarker((e) => e.event === 'commandResult', 'improveCoverage result', 120_000);
    log(`improveCoverage result: ${JSON.stringify(result.result)}`);
    const tbName = path.basename(new URL(applied.uris[0]).pathname);
    await page.locator('.tab.active', { hasText: tbName }).waitFor({ timeout: 30_000 });
    // The proposal is one undoable edit: undo returns the file to its saved text (tab clean), redo re-applies it.
    const dirty = () => page.locator('.tab.active.dirty').count();
    const waitDirty = async (want) => {
      for (let i = 0; i < 40 && (await dirty() > 0) !== want; i++) await page.waitForTimeout(250);
      return (await dirty() > 0) === want;
    };
    const wasDirty = await waitDirty(true);
    await page.locator('.editor-instance .monaco-editor').first().click({ position: { x: 400, y: 200 } });
    await page.keyboard.press(`${mod}+Z`);
    const undone = await waitDirty(false);
    await page.keyboard.press(`${mod}+Shift+Z`);
    const redone = await waitDirty(true);
    if (!wasDirty || !undone || !redone) throw new Error(`undo/redo of the proposal: dirty after apply ${wasDirty}, clean after undo ${undone}, dirty after redo ${redone}`);
    log(`proposal applied in ${tbName}; undo → saved text, redo → proposal again`);
    await page.keyboard.press(`${mod}+S`);
    const cov2 = await waitMarker((e, i) => e.event === 'coverage' && i >= before, 'coverage of the accepted proposal', 240_000);
    log(`coverage after the proposal: ${JSON.stringify(cov2)}`);
    await page.locator('.statusbar-item', { hasText: `Benchwright: ${Math.floor(cov2.overall)} %` }).first().waitFor({ timeout: 30_000 });
    await page.waitForTimeout(1000);
    await shot(page, '3-after-proposal');

    // Flow 3b: Generate Testbench → Review → VS Code's refactor preview → Apply there.
    const before2 = events().length;
    await page.keyboard.press('F1');
    await page.keyboard.type('Benchwright: Generate Testbench');
    await page.waitForTimeout(800);
    await page.keyboard.press('Enter');
    await waitMarker((e, i) => i >= before2 && e.event === 'proposal', 'a generated testbench proposal', 480_000);
    const toast2 = page.locator('.notification-toast', { hasText: 'Benchwright:' }).filter({ has: page.locator('.monaco-button', { hasText: 'Review' }) });
    await toast2.first().waitFor({ timeout: 30_000 });
    await toast2.first().locator('.monaco-button', { hasText: /^Review$/ }).click();
    const previewApply = page.locator('.part.panel .monaco-button, .bulk-edit-panel .monaco-button', { hasText: /^Apply$/ });
    await previewApply.first().waitFor({ timeout: 30_000 });
    await page.waitForTimeout(1000);
    // Changes that need confirmation start unchecked: tick the file, look, then Apply.
    const row = page.locator('.part.panel .monaco-list-row').first();
    await row.waitFor({ timeout: 10_000 });
    const box = row.locator('input[type="checkbox"], .monaco-checkbox, .monaco-custom-toggle').first();
    if (await box.count() === 0) throw new Error(`no checkbox in the refactor preview row: ${await row.evaluate((el) => el.outerHTML)}`);
    await box.click();
    await page.waitForTimeout(500);
    await shot(page, '3b-review-preview');
    await previewApply.first().click();
    const reviewed = await waitMarker((e, i) => i >= before2 && e.event === 'proposalApplied', 'the reviewed proposal applied', 30_000);
    if (!reviewed.applied || reviewed.choice !== 'Review') throw new Error(`reviewed proposal not applied: ${JSON.stringify(reviewed)}`);
    const genResult = await waitMarker((e, i) => i >= before2 && e.event === 'commandResult', 'generateTestbench result', 120_000);
    log(`generateTestbench via Review: ${JSON.stringify(genResult.result)}`);
    await page.keyboard.press(`${mod}+S`);

    // Flow 4: a deliberate syntax error → an error in the Problems count.
    await page.keyboard.press(`${mod}+P`);
    await page.keyboard.type('traffic_light.sv');
    await page.waitForTimeout(800);
    await page.keyboard.press('Enter');
    await page.locator('.tab.active', { hasText: 'traffic_light.sv' }).waitFor({ timeout: 30_000 });
    await editor.click({ position: { x: 300, y: 100 } });
    await page.keyboard.press(`${mod}+End`);
    await page.keyboard.type('\nmodule broken(; wire x = ;\n');
    await waitMarker((e) => e.event === 'diagnostics' && e.uri === rtlUri && e.errors > 0, 'an error diagnostic for the syntax error', 60_000);
    const problems = page.locator('#status\\.problems, .statusbar-item[id="status.problems"]');
    let label = '';
    for (let i = 0; i < 40; i++) {
      label = (await problems.first().getAttribute('aria-label').catch(() => '')) ?? '';
      if (/Errors?: [1-9]/i.test(label)) break;
      await page.waitForTimeout(250);
    }
    log(`Problems status: "${label}"`);
    if (!/Errors?: [1-9]/i.test(label)) throw new Error(`Problems count shows no error: "${label}"`);
    await page.keyboard.press(`${mod}+Shift+M`);
    await page.waitForTimeout(1500);
    await shot(page, '4-syntax-error');

    // Flow 5: a repository without design.toml, two possible tops → notification → picker → setting.
    const before5 = events().length;
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws2)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await waitMarker((e, i) => i >= before5 && e.event === 'serverStarted', 'server start in the second workspace', 120_000);
    await page.locator('.monaco-workbench').click({ position: { x: 800, y: 500 } }).catch(() => undefined);
    await page.keyboard.press(`${mod}+P`);
    await page.keyboard.type('fifo.v');
    await page.waitForTimeout(800);
    await page.keyboard.press('Enter');
    await page.locator('.tab.active', { hasText: 'fifo.v' }).waitFor({ timeout: 30_000 });
    const ambiguous = await waitMarker((e, i) => i >= before5 && e.event === 'ambiguousTop', 'benchwright/ambiguousTop', 120_000);
    log(`ambiguous top: ${JSON.stringify(ambiguous)}`);
    if (JSON.stringify([...ambiguous.candidates].sort()) !== JSON.stringify(['uart_a', 'uart_b'])) throw new Error(`candidates: ${ambiguous.candidates}`);
    const pickToast = page.locator('.notification-toast', { hasText: 'could be the top' })
      .filter({ has: page.locator('.monaco-button', { hasText: 'Pick top' }) });
    await pickToast.first().waitFor({ timeout: 30_000 });
    const toastText = await pickToast.first().innerText();
    if (!/uart_a \(uart_a\.v:1\)/.test(toastText) || !/uart_b \(uart_b\.v:1\)/.test(toastText)) throw new Error(`toast lacks file:line candidates: ${toastText}`);
    await page.waitForTimeout(1000); // the toast slides in
    await shot(page, '5-top-ambiguous');
    await pickToast.first().locator('.monaco-button', { hasText: /Pick top/ }).click();
    const quickPick = page.locator('.quick-input-widget');
    await quickPick.locator('.monaco-list-row', { hasText: 'uart_b' }).first().waitFor({ timeout: 30_000 });
    await page.waitForTimeout(500);
    await shot(page, '5b-top-picker');
    await quickPick.locator('.monaco-list-row', { hasText: 'uart_b' }).first().click();
    const picked = await waitMarker((e, i) => i >= before5 && e.event === 'topPicked', 'the picked top written', 30_000);
    const written = JSON.parse(fs.readFileSync(path.join(ws2, '.vscode/settings.json'), 'utf8'));
    if (written['benchwright.project.top'] !== 'uart_b') throw new Error(`workspace settings: ${JSON.stringify(written)}`);
    log(`picked ${picked.name}: .vscode/settings.json has benchwright.project.top = ${written['benchwright.project.top']}`);
    // Saving the shared FIFO now simulates the picked top with the repository's own testbench (tb/tb_uart_b.v).
    const afterPick = events().length;
    await page.locator('.editor-instance .monaco-editor').first().click({ position: { x: 300, y: 100 } });
    await page.keyboard.press(`${mod}+End`);
    await page.keyboard.type('\n// saved after picking the top\n');
    await page.keyboard.press(`${mod}+S`);
    const cov5 = await waitMarker((e, i) => i >= afterPick && e.event === 'coverage' && e.design === 'two_tops', 'coverage of the picked top', 240_000);
    log(`coverage after the pick: ${JSON.stringify(cov5)}`);
    if (cov5.status !== 'ok' || cov5.top !== 'uart_b' || !/repository's own/.test(cov5.testbenchSource)) throw new Error(`coverage after the pick: ${JSON.stringify(cov5)}`);
    const status5 = page.locator('.statusbar-item', { hasText: /Benchwright: \d+ % · \d+ holes?/ }).first();
    await status5.waitFor({ timeout: 30_000 });
    await status5.hover();
    await page.waitForTimeout(1500);
    await shot(page, '5c-picked-top-coverage');
  }

  // Flow 6: a public repository as cloned (no design.toml, no testbench Benchwright can run) →
  // save an RTL file → the built-in engine writes a testbench under .benchwright/ → coverage.
  if (FIRST_WS !== 'accept') {
    const before6 = events().length;
    if (FIRST_WS === 'main') {
      await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws3)}`);
      await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
      await waitMarker((e, i) => i >= before6 && e.event === 'serverStarted', 'server start in the cloned repository', 120_000);
    }
    await page.locator('.monaco-workbench').click({ position: { x: 800, y: 500 } }).catch(() => undefined);
    await page.keyboard.press(`${mod}+P`);
    await page.keyboard.type(path.basename(CLONED_FILE));
    await page.waitForTimeout(800);
    await page.keyboard.press('Enter');
    await page.locator('.tab.active', { hasText: path.basename(CLONED_FILE) }).waitFor({ timeout: 30_000 });
    const clonedUri = new URL(`file://${path.join(ws3, CLONED_FILE)}`).href;
    const lint6 = await waitMarker((e, i) => i >= before6 && e.event === 'diagnostics' && e.uri === clonedUri, 'lint of the cloned repository', 120_000)
      .catch(() => undefined);
    log(lint6 ? `cloned repository linted: ${lint6.errors} errors, ${lint6.total} diagnostics` : 'cloned repository: no diagnostics event (clean file)');
    const save6 = events().length;
    await page.locator('.editor-instance .monaco-editor').first().click({ position: { x: 300, y: 100 } });
    await page.keyboard.press(`${mod}+End`);
    await page.keyboard.type('\n// saved in the cloned repository\n');
    await page.keyboard.press(`${mod}+S`);
    const generating = page.locator('.statusbar-item', { hasText: /Benchwright: generating/ }).first();
    await generating.waitFor({ timeout: 60_000 });
    log(`status bar while the engine writes a testbench: "${(await generating.innerText()).trim()}"`);
    const cov6 = await waitMarker((e, i) => i >= save6 && e.event === 'coverage' && e.design === path.basename(CLONED),
      'coverage of the cloned repository', 420_000);
    log(`coverage of the cloned repository: ${JSON.stringify(cov6)}`);
    if (cov6.status !== 'ok' || !/built-in engine/.test(cov6.testbenchSource)) throw new Error(`cloned repository: ${JSON.stringify(cov6)}`);
    const generated = path.join(ws3, '.benchwright/generated', path.basename(CLONED), `tb_${cov6.top}.sv`);
    if (!fs.existsSync(generated)) throw new Error(`no generated testbench at ${generated}`);
    const status6 = page.locator('.statusbar-item', { hasText: /Benchwright: \d+ % · \d+ holes?/ }).first();
    await status6.waitFor({ timeout: 30_000 });
    log(`status bar: "${(await status6.innerText()).trim()}"`);
    await page.keyboard.press(`${mod}+Shift+E`); // the Explorer, with coverage per file
    await status6.hover();
    await page.waitForTimeout(1500);
    await shot(page, '6-cloned-repo-coverage');
  }

  if (FIRST_WS !== 'cloned') await flowAccept(page, mod, FIRST_WS === 'main');
  log(`PASS in ${((Date.now() - T0) / 1000).toFixed(1)} s; screenshots: ${shots.join(' ')}`);
} catch (err) {
  failure = err;
  try {
    const pages = browser?.contexts()[0]?.pages() ?? [];
    if (pages[0]) await shot(pages[0], 'failure');
  } catch { /* ignore */ }
} finally {
  if (fs.existsSync(marker)) fs.copyFileSync(marker, path.join(ARTIFACTS, 'marker.jsonl'));
  await browser?.close().catch(() => undefined);
  try { process.kill(-cs.pid, 'SIGTERM'); } catch { /* gone */ }
}
if (failure) {
  console.error(`[e2e] FAIL: ${failure.stack ?? failure}`);
  console.error(`[e2e] artifacts in ${ARTIFACTS} (code-server.log, marker.jsonl, screenshots)`);
  process.exit(1);
}
process.exit(0);
