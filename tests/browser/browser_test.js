// eddy's web page (web/) in headless Chromium: the page runs scenes from the
// WebAssembly build in a Web Worker, and every frame's hash must match the
// scene's golden; the canvas must show something. Run by scripts/check_wasm.sh.
//
//   node tests/browser/browser_test.js --web build-wasm-em/web --out build-wasm-em \
//        [--scenes vortex_ring,buoyant_ball] [--chromium /usr/bin/chromium]
//
// The page is served the way web/README.md says, by `python3 -m http.server`
// on 127.0.0.1 (a free port). Screenshots: <out>/web-<scene>.png.
// Exit 0 when every scene matched, 1 otherwise (the reason on stderr).
'use strict';
const {spawn} = require('child_process');
const path = require('path');
const {chromium} = require('playwright-core');

const SCENE_TIMEOUT_MS = 120000;
const BACKGROUND = [11, 12, 16];      // web/app.js clears the canvas to this
const MIN_DRAWN_PIXELS = 200;

function parseArgs(argv) {
    const o = {web: null, out: null, scenes: ['vortex_ring', 'buoyant_ball'],
               chromium: '/usr/bin/chromium'};
    for (let i = 2; i < argv.length; i += 2) {
        const name = argv[i].replace(/^--/, '');
        if (!(name in o) || i + 1 >= argv.length) throw new Error('bad argument ' + argv[i]);
        o[name] = name === 'scenes' ? argv[i + 1].split(',') : argv[i + 1];
    }
    if (!o.web || !o.out) throw new Error('usage: browser_test.js --web DIR --out DIR');
    return o;
}

// python3 -m http.server on a free port of 127.0.0.1; resolves to {url, stop}.
function serve(dir) {
    return new Promise((resolve, reject) => {
        const server = spawn('python3', ['-u', '-m', 'http.server', '--bind', '127.0.0.1',
                                         '--directory', dir, '0'],
                             {stdio: ['ignore', 'pipe', 'pipe']});
        const timer = setTimeout(() => reject(new Error('http.server did not start')), 10000);
        server.on('error', reject);
        server.stdout.on('data', (chunk) => {
            const m = /port (\d+)/.exec(chunk.toString());
            if (!m) return;
            clearTimeout(timer);
            resolve({url: 'http://127.0.0.1:' + m[1] + '/', stop: () => server.kill()});
        });
        server.stderr.resume();  // the access log
    });
}

// Pixels that differ from the background (the canvas is not blank).
function drawnPixels(page) {
    return page.evaluate((bg) => {
        const c = document.getElementById('view');
        const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let k = 0; k < data.length; k += 4) {
            if (data[k] !== bg[0] || data[k + 1] !== bg[1] || data[k + 2] !== bg[2]) ++n;
        }
        return n;
    }, BACKGROUND);
}

async function waitForScene(page, scene) {
    await page.waitForFunction(
        (s) => window.eddyPage && window.eddyPage.scene === s &&
               (window.eddyPage.done || window.eddyPage.error !== null ||
                window.eddyPage.diverged > 0),
        scene, {timeout: SCENE_TIMEOUT_MS, polling: 100});
    return page.evaluate(() => ({...window.eddyPage}));
}

// The scene's run, checked. Returns a list of problems (empty: passed).
async function checkScene(page, scene, out) {
    const started = Date.now();
    const state = await waitForScene(page, scene);
    const problems = [];
    if (state.error !== null) problems.push('page error: ' + state.error);
    if (state.diverged > 0) {
        problems.push(state.diverged + ' frame(s) diverged from the golden, the first at frame ' +
                      state.firstDivergence);
    }
    if (state.matched !== state.lastFrame + 1) {
        problems.push('matched ' + state.matched + ' frames, the golden holds ' +
                      (state.lastFrame + 1));
    }
    const drawn = await drawnPixels(page);
    if (drawn < MIN_DRAWN_PIXELS) problems.push('the canvas is blank (' + drawn + ' pixels drawn)');
    const shot = path.join(out, 'web-' + scene + '.png');
    await page.screenshot({path: shot});
    console.log(`${scene}: ${state.matched}/${state.lastFrame + 1} frames match the golden, ` +
                `${state.diverged} diverged, ${drawn} pixels drawn, ` +
                `${((Date.now() - started) / 1000).toFixed(1)} s; screenshot ${shot}` +
                (problems.length ? '' : ': ok'));
    return problems;
}

async function main() {
    const o = parseArgs(process.argv);
    const server = await serve(o.web);
    const browser = await chromium.launch({executablePath: o.chromium, headless: true,
                                           args: ['--no-sandbox']});
    const failures = [];
    try {
        const page = await browser.newPage({viewport: {width: 1280, height: 720}});
        page.on('pageerror', (e) => failures.push('uncaught in the page: ' + e.message));
        page.on('console', (m) => { if (m.type() === 'error') failures.push('console: ' + m.text()); });
        // The first scene from the address, the others through the page's picker.
        await page.goto(server.url + '?scene=' + o.scenes[0]);
        for (let i = 0; i < o.scenes.length; ++i) {
            if (i > 0) await page.selectOption('#scene', o.scenes[i]);
            for (const p of await checkScene(page, o.scenes[i], o.out)) {
                failures.push(o.scenes[i] + ': ' + p);
            }
        }
    } finally {
        await browser.close();
        server.stop();
    }
    if (failures.length > 0) {
        for (const f of failures) console.error('FAIL ' + f);
        process.exit(1);
    }
    console.log('browser test: ' + o.scenes.length + ' scenes, every frame matched its golden');
}

main().catch((e) => {
    console.error('FAIL ' + (e && e.stack ? e.stack : e));
    process.exit(1);
});
