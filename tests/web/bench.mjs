// bench.mjs: posviz's frame benchmark in the page (scripts/web --bench [N] [TABS]): opens
// index.html?bench-frames=N[&bench-tabs=TABS] in headless Chromium (WebGL 2 by SwiftShader) and
// prints the table the page prints, the same as `posviz --bench-frames N` prints on the desktop.
//   node bench.mjs WEB_DIR [FRAMES] [TABS] [--no-isolation]
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createRequire } from 'node:module';

const puppeteer = createRequire(path.resolve(process.env.POSVIZ_NODE_MODULES || '.', 'x.js'))('puppeteer-core');
const argv = process.argv.slice(2);
const plain = argv.includes('--no-isolation');
const [webDir, frames = '100', tabs = ''] = argv.filter((a) => a !== '--no-isolation');
const here = path.dirname(new URL(import.meta.url).pathname);

const server = spawn('python3', [path.join(here, '..', '..', 'scripts', 'web_serve.py'), webDir, '--port', '0',
                                 ...(plain ? ['--no-isolation'] : [])], { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise((resolve) => {
  let text = '';
  server.stdout.on('data', (d) => { text += d; const m = text.match(/http:\/\/127\.0\.0\.1:\d+\//); if (m) resolve(m[0]); });
});
const browser = await puppeteer.launch({
  executablePath: process.env.POSVIZ_CHROMIUM || '/usr/bin/chromium', headless: true,
  args: ['--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--no-sandbox', '--disable-dev-shm-usage'],
  defaultViewport: { width: 1280, height: 800 }, protocolTimeout: 3600000,
});
let finished;
const done = new Promise((r) => { finished = r; });
try {
  const page = await browser.newPage();
  page.on('console', (m) => {
    const t = m.text();
    if (/^posviz: GPU compute unavailable/.test(t)) return;
    console.log(t);
    if (/^\(paired: each round/.test(t) || /did not settle/.test(t) && /^frame benchmark/.test(t)) finished();
  });
  page.on('pageerror', (e) => { console.log('page error: ' + e.message); finished(); });
  const t0 = Date.now();
  await page.goto(`${url}?bench-frames=${frames}${tabs ? '&bench-tabs=' + tabs : ''}`);
  await done;
  console.log(`(in the page, ${plain ? 'not isolated: jobs between frames' : 'cross-origin isolated: worker threads'}; ${((Date.now() - t0) / 1000).toFixed(0)} s)`);
} finally {
  await browser.close();
  server.kill();
}
