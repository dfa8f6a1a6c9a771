// eddy's web page (web/) in headless Chromium: the page runs scenes from the
// WebAssembly build in a Web Worker, and every frame's hash must match the
// scene's golden; the canvas must show something. Scenes drawn as smoke (the
// smoke volume ray-marched in WebGL2) must show it: the pixels over the
// densest column of smoke are brighter than the background, pixels of the
// smoke's region differ from it, and pixels outside the region are the
// background. Run by scripts/check_wasm.sh.
//
//   node tests/browser/browser_test.js --web build-wasm-em/web --out build-wasm-em \
//        [--scenes smoke_grenade,buoyant_ball] [--chromium /usr/bin/chromium]
//
// A scene is drawn as smoke, or as particles with ":particles"; at the end
// the last scene's last frame is drawn the other way too (the display menu
// of a finished run) and must not be blank either. Chromium
// runs WebGL2 on SwiftShader, its software GPU (--use-angle=swiftshader, and
// --enable-unsafe-swiftshader, which newer Chromium needs for it), so the
// test needs no GPU and draws the same way on every machine; the page never
// waits for the GPU (web/raymarch.js), so a slow one costs smoke images, not
// frames. The page is served the way web/README.md says, by `python3 -m
// http.server` on 127.0.0.1 (a free port). Screenshots: <out>/web-<scene>.png.
// Exit 0 when every scene passed, 1 otherwise (the reason on stderr).
'use strict';
const {spawn} = require('child_process');
const path = require('path');
const {chromium} = require('playwright-core');

const SCENE_TIMEOUT_MS = 120000;
const BACKGROUND = [11, 12, 16];      // web/app.js clears the canvas to this
const MIN_DRAWN_PIXELS = 200;
const SMOKE_BRIGHTER = 60;           // densest column over the background, mean of r, g, b
const SMOKE_DIFFERS = 24;            // a pixel of smoke: |r|+|g|+|b| from the background
const MIN_SMOKE_SHARE = 0.02;        // of the region's pixels

function parseArgs(argv) {
    const o = {web: null, out: null,
               scenes: ['smoke_grenade', 'buoyant_ball'],
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

// The run ended (or failed) and its last frame is on the canvas, with its
// smoke when drawn as smoke.
async function waitForScene(page, scene) {
    await page.waitForFunction(
        (s) => {
            const e = window.eddyPage;
            if (!e || e.scene !== s) return false;
            if (e.error !== null || e.diverged > 0) return true;
            return e.done && e.drawnFrame === e.frame &&
                   (e.display !== 'smoke' || (e.smoke !== null && e.smoke.frame === e.frame));
        },
        scene, {timeout: SCENE_TIMEOUT_MS, polling: 100});
    return page.evaluate(() => ({...window.eddyPage}));
}

// The smoke on the canvas, measured where the page says it drew it:
// brightest pixel within 3 pixels of the densest column, the share of the
// region's pixels that differ from the background, and the pixels outside
// the region (away from the bodies' outlines) that do.
function smokePixels(page, bg) {
    return page.evaluate(([bg, differs]) => {
        const e = window.eddyPage, v = e.view, s = e.smoke;
        const c = document.getElementById('view');
        const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        const px = (x, z) => [Math.floor(v.width / 2 + (x - v.cx) * v.scale),
                              Math.floor(v.height / 2 - (z - v.cz) * v.scale)];
        const at = (x, y) => 4 * (y * c.width + x);
        const off = (k) => Math.abs(data[k] - bg[0]) + Math.abs(data[k + 1] - bg[1]) +
                           Math.abs(data[k + 2] - bg[2]);
        const [dx, dy] = px(s.densest.x, s.densest.z);
        let densest = 0;
        for (let y = dy - 3; y <= dy + 3; ++y) {
            for (let x = dx - 3; x <= dx + 3; ++x) {
                if (x < 0 || y < 0 || x >= c.width || y >= c.height) continue;
                const k = at(x, y);
                densest = Math.max(densest, (data[k] + data[k + 1] + data[k + 2]) / 3);
            }
        }
        const [x0, y1] = px(s.min[0], s.min[2]), [x1, y0] = px(s.max[0], s.max[2]);
        let inside = 0, smoke = 0, outside = 0, outsideSmoke = 0;
        for (let y = 0; y < c.height; ++y) {
            for (let x = 0; x < c.width; ++x) {
                const k = at(x, y), lit = off(k) > differs;
                if (x > x0 && x < x1 && y > y0 && y < y1) {
                    ++inside;
                    if (lit) ++smoke;
                } else if (x < x0 - 4 || x > x1 + 4 || y < y0 - 4 || y > y1 + 4) {
                    ++outside;    // 4 pixels clear of the region's edge, where walls are drawn
                    if (lit) ++outsideSmoke;
                }
            }
        }
        return {densest, background: (bg[0] + bg[1] + bg[2]) / 3, inside, smoke, outside,
                outsideSmoke};
    }, [bg, SMOKE_DIFFERS]);
}

// The smoke's checks; returns problems and a line for the log.
async function checkSmoke(page, state) {
    const problems = [];
    if (state.webgl === null) return {problems: ['no WebGL2 renderer'], line: 'no smoke drawn'};
    const p = await smokePixels(page, BACKGROUND);
    if (!(p.densest >= p.background + SMOKE_BRIGHTER)) {
        problems.push(`the densest smoke column is not drawn: brightness ${p.densest.toFixed(0)} ` +
                      `over a background of ${p.background.toFixed(0)}`);
    }
    if (!(p.smoke >= MIN_SMOKE_SHARE * p.inside)) {
        problems.push(`${p.smoke} of the smoke region's ${p.inside} pixels differ from the background`);
    }
    if (p.outsideSmoke > 0) {
        problems.push(`${p.outsideSmoke} pixels outside the smoke region differ from the background`);
    }
    const s = state.smoke;
    return {problems,
            line: `smoke frame ${s.frame} (${s.resolution.join('x')} voxels, volume hash ${s.hash}): ` +
                  `densest column ${p.densest.toFixed(0)} over background ${p.background.toFixed(0)}, ` +
                  `${p.smoke}/${p.inside} region pixels differ, ${p.outsideSmoke}/${p.outside} outside` +
                  (s.sight ? `, sight line T = ${s.sight.transmittance.toFixed(4)}` : '')};
}

// The finished run's last frame drawn the other way (the display menu).
async function checkOtherDisplay(page, display) {
    await page.selectOption('#display', display);
    await page.waitForFunction(
        (d) => {
            const e = window.eddyPage;
            return e.error !== null || (e.drawnDisplay === d && e.drawnFrame === e.frame &&
                                        (d !== 'smoke' || (e.smoke !== null && e.smoke.frame === e.frame)));
        },
        display, {timeout: SCENE_TIMEOUT_MS, polling: 100});
    const state = await page.evaluate(() => ({...window.eddyPage}));
    const drawn = await drawnPixels(page);
    const problems = [];
    if (state.error !== null) problems.push('page error: ' + state.error);
    if (drawn < MIN_DRAWN_PIXELS) problems.push(`drawn as ${display}, the canvas is blank`);
    console.log(`${state.scene}: frame ${state.frame} drawn again as ${display}: ${drawn} pixels drawn` +
                (problems.length ? '' : ': ok'));
    return problems;
}

// The scene's run, checked. Returns a list of problems (empty: passed).
async function checkScene(page, scene, display, out) {
    const started = Date.now();
    const state = await waitForScene(page, scene);
    const problems = [];
    if (state.display !== display) problems.push(`drawn as ${state.display}, not ${display}`);
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
    let smokeLine = '';
    if (display === 'smoke' && state.error === null && state.diverged === 0) {
        const smoke = await checkSmoke(page, state);
        problems.push(...smoke.problems);
        smokeLine = '; ' + smoke.line;
    }
    const shot = path.join(out, 'web-' + scene + '.png');
    await page.screenshot({path: shot});
    console.log(`${scene} (${display}): ${state.matched}/${state.lastFrame + 1} frames match the ` +
                `golden, ${state.diverged} diverged, ${drawn} pixels drawn${smokeLine}, ` +
                `${((Date.now() - started) / 1000).toFixed(1)} s; screenshot ${shot}` +
                (problems.length ? '' : ': ok'));
    return problems;
}

async function main() {
    const o = parseArgs(process.argv);
    const server = await serve(o.web);
    const browser = await chromium.launch({
        executablePath: o.chromium, headless: true,
        args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader']});
    const failures = [];
    const runs = o.scenes.map((s) => {
        const [scene, display = 'smoke'] = s.split(':');
        return {scene, display};
    });
    try {
        const page = await browser.newPage({viewport: {width: 1280, height: 720}});
        page.on('pageerror', (e) => failures.push('uncaught in the page: ' + e.message));
        page.on('console', (m) => { if (m.type() === 'error') failures.push('console: ' + m.text()); });
        // The first scene from the address, the others through the page's pickers.
        await page.goto(server.url + '?scene=' + runs[0].scene + '&display=' + runs[0].display);
        for (let i = 0; i < runs.length; ++i) {
            const {scene, display} = runs[i];
            if (i > 0) {
                await page.selectOption('#display', display);
                await page.selectOption('#scene', scene);
            }
            for (const p of await checkScene(page, scene, display, o.out)) {
                failures.push(scene + ': ' + p);
            }
            if (i === 0) {
                const gl = await page.evaluate(() => window.eddyPage.webgl);
                if (gl) console.log('WebGL2: ' + gl);
            }
        }
        const last = runs[runs.length - 1];
        for (const p of await checkOtherDisplay(page, last.display === 'smoke' ? 'particles' : 'smoke')) {
            failures.push(last.scene + ': ' + p);
        }
    } finally {
        await browser.close();
        server.stop();
    }
    if (failures.length > 0) {
        for (const f of failures) console.error('FAIL ' + f);
        process.exit(1);
    }
    console.log('browser test: ' + runs.length + ' scenes, every frame matched its golden');
}

main().catch((e) => {
    console.error('FAIL ' + (e && e.stack ? e.stack : e));
    process.exit(1);
});
