// page_test.mjs: posviz's page in a real browser (Debian's Chromium, headless, through
// puppeteer-core), served from build/web/ by scripts/web_serve.py, with and without cross-origin
// isolation. Run by tests/web/run.sh (scripts/test), which passes what the desktop CLI printed for
// the same questions, so the page is checked against the desktop's own answers:
//   node page_test.mjs WEB_DIR EXPECTED_DIR OUT_DIR
// EXPECTED_DIR: learn-list.txt (posviz learn --list), tabs.txt (one tab name a line), config.json
// (a model config to drop), exports.txt (one export a line: NAME<TAB>ARGS<TAB>MODE) and each
// NAME's file as the desktop CLI wrote it. OUT_DIR receives the screenshots.
// Prints one "ok - " or "not ok - " line a check, then "N passed, M failed"; exits 1 on a failure.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

// puppeteer-core is installed by scripts/deps.sh (posviz_web_test_modules) into the folder named
// by POSVIZ_NODE_MODULES; ES modules do not search NODE_PATH, so it is required from there.
const puppeteer = createRequire(path.resolve(process.env.POSVIZ_NODE_MODULES || '.', 'x.js'))('puppeteer-core');

const [webDir, expectedDir, outDir] = process.argv.slice(2);
if (!webDir || !expectedDir || !outDir) {
  console.error('usage: node page_test.mjs WEB_DIR EXPECTED_DIR OUT_DIR');
  process.exit(2);
}
fs.mkdirSync(outDir, { recursive: true });
const here = path.dirname(new URL(import.meta.url).pathname);
const serveScript = path.join(here, '..', '..', 'scripts', 'web_serve.py');

let passed = 0, failed = 0;
function check(ok, what, detail = '') {
  if (ok) { passed++; console.log(`ok - ${what}`); }
  else { failed++; console.log(`not ok - ${what}${detail ? ': ' + detail : ''}`); }
  return ok;
}

// ---------------------------------------------------------------------------------------------
// The server and the browser
// ---------------------------------------------------------------------------------------------

function serve(isolation) {
  return new Promise((resolve, reject) => {
    const args = [serveScript, webDir, '--port', '0'];
    if (!isolation) args.push('--no-isolation');
    const p = spawn('python3', args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    const timer = setTimeout(() => reject(new Error('the server printed no address in 20 s')), 20000);
    p.stdout.on('data', (d) => {
      text += d;
      const m = text.match(/http:\/\/127\.0\.0\.1:\d+\//);
      if (m) { clearTimeout(timer); resolve({ url: m[0], stop: () => p.kill() }); }
    });
    p.on('exit', (code) => reject(new Error(`the server exited (${code})`)));
  });
}

async function launch() {
  return puppeteer.launch({
    executablePath: process.env.POSVIZ_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--no-sandbox', '--disable-dev-shm-usage',
           '--window-size=1280,800'],
    defaultViewport: { width: 1280, height: 800 },
    protocolTimeout: 240000,
  });
}

// A page of its own storage (settings do not carry from one check to the next), opened at url.
async function open(browser, url, messages) {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  page.on('console', (m) => messages.push(m.text()));
  page.on('pageerror', (e) => messages.push('pageerror: ' + e.message));
  const t0 = Date.now();
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForFunction(() => window.posvizReady === true, { timeout: 120000 });
  await waitFor(page, (s) => s.frame >= 3 && s.title.length > 0, 60000);
  return { page, context, millis: Date.now() - t0 };
}

async function state(page) {
  return page.evaluate(() => {
    const p = Module._posviz_web_state();
    const s = UTF8ToString(p);
    Module._free(p);
    return JSON.parse(s);
  });
}

async function waitFor(page, pred, timeout = 60000) {
  const end = Date.now() + timeout;
  let s;
  while (Date.now() < end) {
    s = await state(page);
    if (pred(s)) return s;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('timed out; last state ' + JSON.stringify(s));
}

// Gives the page window.posvizPixels(base64 PNG) -> its ImageData, decoded by the browser: the one
// PNG reader of the checks below.
async function pixelsIn(page) {
  await page.evaluate(() => {
    window.posvizPixels = window.posvizPixels || (async (data) => {
      const img = new Image();
      img.src = 'data:image/png;base64,' + data;
      await img.decode();
      const c = document.createElement('canvas');
      c.width = img.width; c.height = img.height;
      const g = c.getContext('2d');
      g.drawImage(img, 0, 0);
      return g.getImageData(0, 0, c.width, c.height);
    });
  });
}

// Distinct colours in a screenshot: a blank or failed canvas has one or two.
async function screenshot(page, name) {
  const file = path.join(outDir, name + '.png');
  const b64 = await page.screenshot({ encoding: 'base64' });
  fs.writeFileSync(file, Buffer.from(b64, 'base64'));
  await pixelsIn(page);
  const colours = await page.evaluate(async (data) => {
    const px = (await window.posvizPixels(data)).data;
    const seen = new Set();
    for (let i = 0; i < px.length; i += 4 * 7) seen.add((px[i] << 16) | (px[i + 1] << 8) | px[i + 2]);
    return seen.size;
  }, b64);
  return { file, colours };
}

const settle = (page) => waitFor(page, (s) => !s.busy, 120000);

// ---------------------------------------------------------------------------------------------
// The checks
// ---------------------------------------------------------------------------------------------

function expectedSteps() {
  // "  sin-clocks        A row of clock hands" lines, in the path's order.
  return fs.readFileSync(path.join(expectedDir, 'learn-list.txt'), 'utf8').split('\n')
    .map((l) => l.match(/^  (\S+)\s+(.+)$/)).filter(Boolean).map((m) => ({ id: m[1], title: m[2].trim() }));
}

async function firstScreen(page, mode, millis) {
  const s = await state(page);
  const steps = expectedSteps();
  const title = await page.title();
  check(title === s.title && new RegExp(`^posviz - Learn 1/${steps.length}: `).test(title),
        `${mode}: the first screen is Learn step 1 ("${title}")`);
  const shot = await screenshot(page, `${mode}-learn-1`);
  check(shot.colours > 20, `${mode}: the first screen is drawn (${shot.colours} colours in ${path.basename(shot.file)})`);
  console.log(`# ${mode}: first frame of Learn ${millis} ms after opening the address`);
  const isolated = await page.evaluate(() => self.crossOriginIsolated === true);
  const script = await page.evaluate(() => Module.threads ? 'posviz-mt.js' : 'posviz.js');
  check(isolated === (mode === 'isolated') && script === (isolated ? 'posviz-mt.js' : 'posviz.js'),
        `${mode}: the page ${isolated ? 'is' : 'is not'} cross-origin isolated and loaded ${script}`);
}

async function walkLearn(page, mode) {
  const steps = expectedSteps();
  await page.focus('#canvas');
  let ok = true, detail = '';
  for (let i = 1; i < steps.length; i++) {
    await page.keyboard.press('PageDown');
    const want = `posviz - Learn ${i + 1}/${steps.length}: ${steps[i].title}`;
    try {
      await waitFor(page, (s) => s.title === want, 30000);
    } catch (e) {
      ok = false; detail = `step ${i + 1}: wanted "${want}", ${e.message}`; break;
    }
    if ((await page.title()) !== want) { ok = false; detail = `the browser tab's title is "${await page.title()}"`; break; }
  }
  check(ok, `${mode}: Page Down walks all ${steps.length} Learn steps, the tab's title naming each as posviz learn --list does`, detail);
  // The browser's Back returns to the step before.
  await page.goBack();
  const back = `posviz - Learn ${steps.length - 1}/${steps.length}: ${steps[steps.length - 2].title}`;
  let s;
  try { s = await waitFor(page, (x) => x.title === back, 30000); } catch (e) { s = null; }
  check(s !== null, `${mode}: the browser's Back returns to step ${steps.length - 1}`);
}

async function everyTab(page, mode, messages) {
  const tabs = fs.readFileSync(path.join(expectedDir, 'tabs.txt'), 'utf8').split('\n').filter(Boolean);
  for (const tab of tabs) {
    const before = messages.length;
    const ok = await page.evaluate((t) => Module.ccall('posviz_web_select_panel', 'number', ['string'], [t]), tab);
    let s = null;
    try { s = await waitFor(page, (x) => x.panel === tab && !x.busy && x.frame > 0, 120000); } catch (e) { /* reported below */ }
    const failedView = messages.slice(before).find((m) => /view failed/.test(m));
    const shot = s ? await screenshot(page, `${mode}-tab-${tab}`) : { colours: 0, file: '' };
    check(ok === 1 && s !== null && !failedView && shot.colours > 20,
          `${mode}: tab ${tab} renders (${shot.colours} colours)`, failedView || (s ? '' : 'never settled'));
  }
}

async function linkRoundTrip(browser, url, mode) {
  const messages = [];
  const a = await open(browser, url, messages);
  await a.page.focus('#canvas');
  for (let i = 0; i < 4; i++) await a.page.keyboard.press('PageDown');
  const at = await waitFor(a.page, (s) => /Learn 5\//.test(s.title));
  const link = await a.page.evaluate(() => location.href);
  check(/#posviz-session-1:/.test(link), `${mode}: the address holds the session (${link.length} characters)`);
  await a.context.close();

  const b = await open(browser, link, []);
  const s = await state(b.page);
  check(s.title === at.title && s.step === at.step, `${mode}: the link reopens the session: "${s.title}"`);
  await b.context.close();
  await desktopOpensPageSession(browser, decodeURIComponent(link.substring(link.indexOf('#') + 1)), at.step, mode);

  for (const [what, frag] of [['damaged', '#posviz-session-1:not*base64'], ['newer', '#' + newerSession()]]) {
    const c = await open(browser, url + frag, []);
    const t = await state(c.page);
    check(/Learn 1\//.test(t.title) && /link was not opened/.test(t.notice),
          `${mode}: a ${what} link is refused by name and changes nothing`, t.notice);
    await c.context.close();
  }
}

// The address's query is the window's command line: ?step= opens a Learn step; a word the window
// does not know (a shared link's tracking tag) leaves the page opening as usual, with a notice.
async function addressOptions(browser, url, mode) {
  const steps = expectedSteps();
  const a = await open(browser, url + '?step=' + steps[10].id, []);
  const s = await state(a.page);
  check(s.step === steps[10].id && s.title === `posviz - Learn 11/${steps.length}: ${steps[10].title}`,
        `${mode}: ?step=${steps[10].id} opens Learn at that step`, s.title);
  await a.context.close();
  const b = await open(browser, url + '?utm_source=newsletter', []);
  const t = await state(b.page);
  check(/Learn 1\//.test(t.title) && /options were not used/.test(t.notice),
        `${mode}: an address with a word the window does not take still opens, saying so`, t.notice);
  await b.context.close();
}

// The session line the page made, saved as a file, opens in the desktop window at the step it
// names: right of the path's list (which the session marks with the steps seen) its picture is
// pixel for pixel the one `posviz --step STEP` draws.
async function desktopOpensPageSession(browser, line, step, mode) {
  const desktop = process.env.POSVIZ_DESKTOP;
  const file = path.join(outDir, `${mode}-page-session.posviz`);
  fs.writeFileSync(file, line + '\n');
  const shot = (name, args) => {
    const png = path.join(outDir, `${mode}-desktop-${name}.png`);
    fs.rmSync(png, { force: true });
    const r = spawnSync('xvfb-run', ['-a', desktop, '--no-settings', '--size', '1280x800', ...args, '--screenshot', png],
                        { encoding: 'utf8', timeout: 120000 });
    return { r, png: fs.existsSync(png) ? png : null };
  };
  const a = shot('session', ['--session', file]), b = shot('step', ['--step', step]);
  let changed = -2;
  if (a.png && b.png) {
    const p = await browser.newPage();
    changed = await changedPixels(p, a.png, b.png, 280);
    await p.close();
  }
  check(a.r.status === 0 && changed === 0,
        `${mode}: the page's session, saved to a file, opens in the desktop window at step ${step} (the picture of --step ${step})`,
        `${changed} sampled pixels differ; ` + (a.r.stderr || '') + (b.r.stderr || ''));
}

function newerSession() {
  const json = JSON.stringify({ format: 'posviz-session', version: 99, panel: 'rope', panels: {} });
  return 'posviz-session-1:' + Buffer.from(json).toString('base64url');
}

async function dropConfig(page, mode) {
  const text = fs.readFileSync(path.join(expectedDir, 'config.json'), 'utf8');
  // From another tab, so that arriving in the Model tab is the drop's doing.
  await page.evaluate(() => Module.ccall('posviz_web_select_panel', 'number', ['string'], ['learn']));
  await waitFor(page, (x) => x.panel === 'learn');
  await page.evaluate((t) => {
    const dt = new DataTransfer();
    dt.items.add(new File([t], 'config.json', { type: 'application/json' }));
    document.getElementById('canvas').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, text);
  let s = null;
  try { s = await waitFor(page, (x) => x.panel === 'model' && /Loaded/.test(x.message) && !x.busy, 60000); } catch (e) { /* below */ }
  const shot = s ? await screenshot(page, `${mode}-model-dropped`) : { colours: 0 };
  check(s !== null && shot.colours > 20, `${mode}: a config.json dropped on the page opens in the Model tab`, s ? s.message : '');
}

// Where the window last drew its choosers and test-named buttons: {id: [x, y, w, h]}.
async function buttons(page) {
  return page.evaluate(() => {
    const p = Module._posviz_web_buttons();
    const s = UTF8ToString(p);
    Module._free(p);
    return JSON.parse(s);
  });
}

// The window's button `id` scrolled into view (the wheel over its column), as a user would; its
// rectangle then.
async function reveal(page, id) {
  for (let i = 0; i < 60; i++) {
    const b = (await buttons(page))[id];
    if (!b) throw new Error(`no button ${id} drawn; drawn: ${JSON.stringify(await buttons(page))}`);
    if (b[1] >= 60 && b[1] + b[3] <= 760) return b;
    if (process.env.POSVIZ_WEB_DEBUG) console.log(`# reveal ${id}: ${JSON.stringify(b)}`);
    await page.mouse.move(b[0] + 5, 400);
    await page.mouse.wheel({ deltaY: b[1] > 760 ? 200 : -200 });
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`button ${id} could not be scrolled into view`);
}

// Clicks the window's button `id` and hands the browser's file chooser `files` (a folder for a
// folder chooser).
async function choose(page, id, files) {
  const b = await reveal(page, id);
  const [chooser] = await Promise.all([page.waitForFileChooser({ timeout: 20000 }),
                                       page.mouse.click(b[0] + b[2] / 2, b[1] + b[3] / 2)]);
  await chooser.accept(files);
}

// Pixels that differ between two screenshots (PNG files of one size), sampled every 7th.
async function changedPixels(page, fileA, fileB, left = 0) {
  const a = fs.readFileSync(fileA).toString('base64'), b = fs.readFileSync(fileB).toString('base64');
  await pixelsIn(page);
  return page.evaluate(async (a, b, left) => {
    const pa = await window.posvizPixels(a), pb = await window.posvizPixels(b);
    if (pa.width !== pb.width || pa.height !== pb.height) return -1;
    let n = 0;
    for (let i = 0; i < pa.data.length; i += 4 * 7) {
      if ((i / 4) % pa.width < left) continue;
      n += pa.data[i] !== pb.data[i] || pa.data[i + 1] !== pb.data[i + 1] || pa.data[i + 2] !== pb.data[i + 2];
    }
    return n;
  }, a, b, left);
}

// The mean brightness (0..255) of a PNG file, decoded by the page.
async function meanLuma(page, file) {
  const data = fs.readFileSync(file).toString('base64');
  await pixelsIn(page);
  return page.evaluate(async (data) => {
    const px = (await window.posvizPixels(data)).data;
    let sum = 0, n = 0;
    for (let i = 0; i < px.length; i += 4 * 7) { sum += 0.299 * px[i] + 0.587 * px[i + 1] + 0.114 * px[i + 2]; n++; }
    return sum / n;
  }, data);
}

// F11 presents the figure; Esc returns. View > Light theme turns the page light, and the settings
// the page keeps (browser storage) open in the desktop window light as well.
async function presentAndTheme(browser, url, mode) {
  const { page, context } = await open(browser, url, []);
  await settle(page);
  await page.focus('#canvas');
  await page.mouse.move(900, 400);
  await page.keyboard.press('F11');
  const shown = await waitFor(page, (s) => s.presenting, 20000).catch(() => null);
  const shot = await screenshot(page, `${mode}-present`);
  await page.keyboard.press('Escape');
  const back = await waitFor(page, (s) => !s.presenting, 20000).catch(() => null);
  check(shown !== null && back !== null && shot.colours > 20, `${mode}: F11 presents the figure (${path.basename(shot.file)}), Esc returns`);

  const dark = await screenshot(page, `${mode}-dark`);
  const view = (await buttons(page))['menu-view'];
  await page.mouse.click(view[0] + view[2] / 2, view[1] + view[3] / 2);
  let item = null;
  for (let i = 0; i < 40 && !item; i++) {
    await new Promise((r) => setTimeout(r, 100));
    const b = await buttons(page);
    if (b['view-light-theme'] && b['view-light-theme'][1] > view[1]) item = b['view-light-theme'];
  }
  if (item) await page.mouse.click(item[0] + item[2] / 2, item[1] + item[3] / 2);
  const lit = await waitFor(page, (s) => s.light, 20000).catch(() => null);
  await new Promise((r) => setTimeout(r, 300));
  const light = await screenshot(page, `${mode}-light`);
  const [ld, ll] = [await meanLuma(page, dark.file), await meanLuma(page, light.file)];
  check(lit !== null && ll > ld + 60, `${mode}: View > Light theme turns the page light (mean brightness ${ld.toFixed(0)} -> ${ll.toFixed(0)})`);

  // The settings, as the page keeps them, in a desktop window's settings folder.
  const text = await page.evaluate(() => {
    _posviz_web_store_settings();
    return new TextDecoder().decode(FS.readFile('/home/web_user/.config/posviz/settings.json'));
  });
  await context.close();
  const dir = path.join(outDir, `${mode}-page-settings`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'settings.json'), text);
  const desk = path.join(outDir, `${mode}-desktop-page-settings.png`);
  const r = spawnSync('xvfb-run', ['-a', path.join(path.dirname(new URL(import.meta.url).pathname), 'window_shot.sh'),
                                   process.env.POSVIZ_DESKTOP, dir, desk], { encoding: 'utf8', timeout: 150000 });
  const dl = fs.existsSync(desk) ? await (async () => { const p2 = await browser.newPage(); const v = await meanLuma(p2, desk); await p2.close(); return v; })() : 0;
  check(r.status === 0 && dl > ld + 60 && !/cannot|refused|not read|will not/i.test(r.stderr || ''),
        `${mode}: the page's settings.json opens in the desktop window light (mean brightness ${dl.toFixed(0)})`, r.stderr || '');
}

// The Model tab's "Add file" field: its chooser copies a second config into the page, which the
// tab adds beside the first (the compare table and the second model's wavelengths appear).
async function chooserAddsModel(page, mode) {
  const before = await screenshot(page, `${mode}-model-before-add`);
  await choose(page, 'addpath', [path.join(expectedDir, 'config-2.json')]);
  await new Promise((r) => setTimeout(r, 1500));
  await settle(page);
  const after = await screenshot(page, `${mode}-model-added`);
  const changed = await changedPixels(page, before.file, after.file);
  const s = await state(page);
  check(s.panel === 'model' && changed > 2000 && !/not a file|cannot/.test(s.notice),
        `${mode}: the Model tab's chooser adds a second config (${changed} sampled pixels changed)`, s.notice);
}

// Each export run by the page's own CLI, compared with the desktop's file: byte for byte, or as
// float arrays within a stated bound where the numbers come through sin/cos/exp.
async function exportsMatch(page, mode) {
  const lines = fs.readFileSync(path.join(expectedDir, 'exports.txt'), 'utf8').split('\n').filter(Boolean);
  for (const line of lines) {
    const [name, args, how] = line.split('\t');
    const out = '/tmp/' + name;
    const bytes = await page.evaluate((a, o) => {
      const rc = Module.ccall('posviz_web_run_cli', 'number', ['string'], [a.split(' ').concat(['-o', o]).join('\n')]);
      if (rc !== 0) return { rc };
      return { rc, data: Array.from(FS.readFile(o)) };
    }, args, out);
    const desk = fs.readFileSync(path.join(expectedDir, name));
    if (bytes.rc !== 0) { check(false, `${mode}: export ${name} (${args})`, `exit ${bytes.rc}`); continue; }
    const web = Buffer.from(bytes.data);
    if (how === 'bytes') {
      check(Buffer.compare(web, desk) === 0, `${mode}: export ${name} is byte-identical to the desktop's (${desk.length} bytes)`);
    } else {
      const ulps = parseInt(how.replace('ulp', ''), 10);
      const r = compareNpy(web, desk);
      check(r.ok && r.maxUlps <= ulps,
            `${mode}: export ${name} equals the desktop's within ${ulps} ulp (max ${r.maxUlps} ulp, ${r.count} values, max |diff| ${r.maxDiff})`,
            r.why || '');
    }
  }
}

// Training in the page: the same seed twice gives the same bytes; against the desktop's run of
// the same command, every loss of the curve and every accuracy is compared. Both platforms do the
// same float32 and float64 operations in the same order, so the curves may part only where the two
// libms' exp/log/tanh differ in their last bit; the bound below (1e-4 relative on each loss, at
// most 1/1024 on an accuracy, one example of the 256 x length evaluated) is what such differences
// could grow to in 100 steps, and the check prints the differences it found.
async function trainMatches(page, mode) {
  const args = fs.readFileSync(path.join(expectedDir, 'train-args.txt'), 'utf8').trim();
  const run = (o) => page.evaluate((a, out) => {
    const rc = Module.ccall('posviz_web_run_cli', 'number', ['string'], [a.split(' ').concat(['-o', out]).join('\n')]);
    return rc === 0 ? new TextDecoder().decode(FS.readFile(out)) : 'exit ' + rc;
  }, args, o);
  const t0 = Date.now();
  const first = await run('/tmp/train-1.json');
  const millis = Date.now() - t0;
  const second = await run('/tmp/train-2.json');
  const strip = (t) => t.replace(/"(wall|elapsed|seconds|millis)[a-z_]*":\s*[-0-9.e+]+,?/g, '');
  check(!first.startsWith('exit') && strip(first) === strip(second),
        `${mode}: training in the page twice with one seed gives the same bytes (${first.length} bytes, ${millis} ms a run)`,
        first.startsWith('exit') ? first : '');
  if (first.startsWith('exit')) return;
  const web = JSON.parse(first), desk = JSON.parse(fs.readFileSync(path.join(expectedDir, 'train.json'), 'utf8'));
  let worstLoss = 0, worstAcc = 0, compared = 0;
  for (let e = 0; e < desk.encodings.length; e++) {
    for (let r = 0; r < desk.encodings[e].runs.length; r++) {
      const a = web.encodings[e].runs[r], b = desk.encodings[e].runs[r];
      a.loss_curve.loss.forEach((x, i) => {
        worstLoss = Math.max(worstLoss, Math.abs(x - b.loss_curve.loss[i]) / Math.abs(b.loss_curve.loss[i]));
        compared++;
      });
      a.eval.forEach((x, i) => { worstAcc = Math.max(worstAcc, Math.abs(x.accuracy - b.eval[i].accuracy)); compared++; });
    }
  }
  check(worstLoss <= 1e-4 && worstAcc <= 1 / 1024,
        `${mode}: the page's training agrees with the desktop's (${compared} numbers; largest relative loss difference ${worstLoss.toExponential(2)}, accuracy ${worstAcc})`);
}

// The Train tab as a student uses it: a link sets a small comparison (two encodings, one seed,
// 300 steps), a click on Start trains it in the page, with progress, and the results draw.
async function trainTab(browser, url, mode) {
  const session = { format: 'posviz-session', version: 1, panel: 'train',
                    panels: { train: { steps: 300, seeds: 1, encodings: ['nope', 'rope'], train_length: 8, run_folder: 'runs' } } };
  const link = url + '#posviz-session-1:' + Buffer.from(JSON.stringify(session)).toString('base64url');
  const { page, context } = await open(browser, link, []);
  await waitFor(page, (s) => s.panel === 'train' && !s.busy);
  const before = await screenshot(page, `${mode}-train-before`);
  // Start is the first button of the tab's controls, top left (see the screenshot).
  const t0 = Date.now();
  await page.mouse.click(35, 72);
  let progressed = false, done = null;
  const end = Date.now() + 180000;
  while (Date.now() < end) {
    const s = await state(page);
    if (s.train && s.train.progress > 0 && s.train.progress < 1) progressed = true;
    if (s.train && s.train.finished === s.train.runs && s.train.runs > 0) { done = s; break; }
    await new Promise((r) => setTimeout(r, 200));
  }
  const millis = Date.now() - t0;
  await new Promise((r) => setTimeout(r, 500));
  const after = await screenshot(page, `${mode}-train-after`);
  check(done !== null && progressed && after.colours > before.colours,
        `${mode}: the Train tab trains ${done ? done.train.runs : '?'} runs in the page in ${millis} ms, progress shown (${after.colours} colours after)`,
        done ? '' : JSON.stringify(await state(page)));
  if (done) await saveAndLoadRuns(browser, url, page, mode, done.train.runs);
  await context.close();
}

// Save downloads the run folder as one .tar; unpacked by tar, the folder loads again in a new
// page through the run folder's chooser, every run finished as it was saved.
async function saveAndLoadRuns(browser, url, page, mode, runs) {
  await page.evaluate(() => {
    window.posvizDownloads = [];
    Module.onDownload = (name, bytes) => window.posvizDownloads.push({ name, b64: btoa(Array.from(bytes, (c) => String.fromCharCode(c)).join('')) });
  });
  const save = await reveal(page, 'run-folder-save');
  await page.mouse.click(save[0] + save[2] / 2, save[1] + save[3] / 2);
  await page.waitForFunction(() => window.posvizDownloads.length > 0, { timeout: 30000 });
  const d = (await page.evaluate(() => window.posvizDownloads))[0];
  const dir = path.join(outDir, `${mode}-saved-runs`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, d.name), Buffer.from(d.b64, 'base64'));
  const list = spawnSync('tar', ['-tf', d.name], { cwd: dir, encoding: 'utf8' });
  const untar = spawnSync('tar', ['-xf', d.name], { cwd: dir, encoding: 'utf8' });
  const names = list.stdout.split('\n').filter((n) => /model\.safetensors$/.test(n));
  check(list.status === 0 && untar.status === 0 && names.length === runs,
        `${mode}: Save downloads the runs as ${d.name}, which tar unpacks: ${names.join(', ')}`, list.stderr + untar.stderr);
  const folder = path.join(dir, d.name.replace(/\.tar$/, ''));
  const fresh = await open(browser, url + '?panel=train', []);
  await waitFor(fresh.page, (s) => s.panel === 'train');
  let loaded = null;
  try {
    await choose(fresh.page, 'run-folder', [folder]);
    loaded = await waitFor(fresh.page, (s) => s.train && s.train.runs === runs && s.train.finished === runs, 30000);
  } catch (e) { loaded = null; console.log(String(e)); }
  const shot = await screenshot(fresh.page, `${mode}-train-loaded`);
  check(loaded !== null && shot.colours > 20, `${mode}: the run folder's chooser loads the unpacked folder: ${runs} runs, finished`,
        loaded ? '' : JSON.stringify(await state(fresh.page)));
  await fresh.context.close();
}

// Two .npy files of the same header: the largest difference of their values in units in the last
// place of their dtype (float32 '<f4' or float64 '<f8').
function compareNpy(a, b) {
  const head = (buf) => {
    const len = buf.readUInt16LE(8);
    return { text: buf.subarray(10, 10 + len).toString('latin1'), data: 10 + len };
  };
  const ha = head(a), hb = head(b);
  if (ha.text !== hb.text || a.length !== b.length) return { ok: false, why: `headers differ: ${ha.text} / ${hb.text}` };
  const f8 = /'<f8'/.test(ha.text);
  const size = f8 ? 8 : 4, count = (a.length - ha.data) / size;
  let maxUlps = 0, maxDiff = 0;
  for (let i = 0; i < count; i++) {
    const o = ha.data + i * size;
    const x = f8 ? a.readDoubleLE(o) : a.readFloatLE(o), y = f8 ? b.readDoubleLE(o) : b.readFloatLE(o);
    if (Number.isNaN(x) && Number.isNaN(y)) continue;
    const ix = f8 ? a.readBigInt64LE(o) : BigInt(a.readInt32LE(o)), iy = f8 ? b.readBigInt64LE(o) : BigInt(b.readInt32LE(o));
    const d = ix > iy ? ix - iy : iy - ix;
    maxUlps = Math.max(maxUlps, Number(d));
    maxDiff = Math.max(maxDiff, Math.abs(x - y));
  }
  return { ok: true, maxUlps, maxDiff, count };
}

// ---------------------------------------------------------------------------------------------

async function timed(what, f) {
  const t0 = Date.now();
  await f();
  console.log(`# ${what}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

async function runMode(browser, mode) {
  const server = await serve(mode === 'isolated');
  try {
    const messages = [];
    const { page, context, millis } = await open(browser, server.url, messages);
    await firstScreen(page, mode, millis);
    await timed('Learn walk', () => walkLearn(page, mode));
    await timed('every tab', () => everyTab(page, mode, messages));
    await timed('dropped config', () => dropConfig(page, mode));
    await timed('a chooser in a tab', () => chooserAddsModel(page, mode));
    await timed('exports', () => exportsMatch(page, mode));
    await timed('training by the CLI', () => trainMatches(page, mode));
    await context.close();
    await timed('links', () => linkRoundTrip(browser, server.url, mode));
    await timed('address options', () => addressOptions(browser, server.url, mode));
    await timed('present and theme', () => presentAndTheme(browser, server.url, mode));
    await timed('Train tab', () => trainTab(browser, server.url, mode));
  } finally {
    server.stop();
  }
}

const browser = await launch();
try {
  // POSVIZ_WEB_MODES=plain (or isolated) runs one of the two, when looking into one.
  for (const mode of (process.env.POSVIZ_WEB_MODES || 'isolated,plain').split(',')) {
    try {
      await runMode(browser, mode);
    } catch (e) {
      check(false, `${mode}: the page's checks ran to the end`, e.stack || String(e));
    }
  }
} finally {
  await browser.close();
}
console.log(`page: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
