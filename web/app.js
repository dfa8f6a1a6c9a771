// The page's main thread: picks the scene, fetches its golden, marks each
// frame a Web Worker (worker.js) computes as matching the golden or
// diverged, and draws the newest frame on every animation frame. The
// smoke is ray-marched in WebGL2 (raymarch.js) from the smoke volume the
// worker builds (smoke.js); or the particles are drawn as dots.
//
// The state of the run is also published as window.eddyPage for automated
// checks (tests/browser/): {scene, frame, lastFrame, matched, diverged,
// firstDivergence, done, error, display, drawnFrame, drawnDisplay, webgl,
// view, smoke}: drawnFrame is the frame on the canvas (frame the last one
// checked) and drawnDisplay how it is drawn ('smoke' or 'particles'), view the
// projection {cx, cz, scale, width, height}, smoke the drawn volume's
// {serial, frame, min, max, resolution, sigma, hash, densest: {x, z, depth},
// sight} (the newest smoke image the GPU finished; its serial is the frame
// message's, frame the simulation frame).
'use strict';

const $ = (id) => document.getElementById(id);
const worker = new Worker('worker.js', {type: 'module'});
const canvas = $('view');
const context = canvas.getContext('2d');
const LOG_ROWS = 12;
const BACKGROUND = [11, 12, 16];
// Directions toward the light (world x, y, z); "above" is eddy-replay render --volume's.
const LIGHTS = {above: [-0.35, 0.25, 1], side: [-1, -0.3, 0.35], behind: [0.25, 1, 0.45]};

let scenes = [];
let golden = null;          // Map frame -> hash, plus .lastFrame
let view = null;            // projection, fixed on frame 0
let paused = false;
let runId = 0;              // frames of a previous run are ignored
let shown = null;           // the frame on the canvas
let scheduled = false;      // an animation frame is requested
let frameSerial = 0;        // numbers every frame message
let smokeLayer = null;      // WebGL2 (raymarch.js), made on first use
let smokeNow = null;        // the newest smoke volume from the worker, with its frame's serial
const page = window.eddyPage = {scene: null, frame: -1, lastFrame: 0, matched: 0, diverged: 0,
                                firstDivergence: null, done: false, error: null,
                                display: 'smoke', drawnFrame: -1, drawnDisplay: null,
                                webgl: null, view: null, smoke: null};

// ---------------------------------------------------------------- goldens

// golden/<scene>.golden (docs/golden-format.md): "frame frame_hash ..." lines.
function parseGolden(text, scene) {
    const hashes = new Map();
    let lastFrame = -1;
    for (const line of text.split('\n')) {
        if (!/^[0-9]/.test(line)) continue;
        const [frame, hash] = line.trim().split(/\s+/);
        hashes.set(Number(frame), hash);
        lastFrame = Math.max(lastFrame, Number(frame));
    }
    if (lastFrame < 0) throw new Error('golden/' + scene + '.golden holds no frame');
    hashes.lastFrame = lastFrame;
    return hashes;
}

async function fetchGolden(scene) {
    const response = await fetch('golden/' + scene + '.golden');
    if (!response.ok) throw new Error('golden/' + scene + '.golden: HTTP ' + response.status);
    return parseGolden(await response.text(), scene);
}

// ---------------------------------------------------------------- drawing

function extend(box, points, stride) {
    for (let i = 0; i < points.length; i += stride) {
        box.x0 = Math.min(box.x0, points[i]);
        box.x1 = Math.max(box.x1, points[i]);
        box.z0 = Math.min(box.z0, points[i + 2]);
        box.z1 = Math.max(box.z1, points[i + 2]);
    }
}

// Orthographic x-z view framing the box with a margin: by default its
// larger side times 1.6 in the canvas's smaller side; with a margin given,
// the whole box, both sides, times that margin.
function viewOf(box, margin) {
    if (!(box.x1 >= box.x0)) Object.assign(box, {x0: -1, x1: 1, z0: -1, z1: 1});
    const sx = Math.max(box.x1 - box.x0, 1e-3), sz = Math.max(box.z1 - box.z0, 1e-3);
    const scale = margin ? Math.min(canvas.width / sx, canvas.height / sz) / margin
                         : Math.min(canvas.width, canvas.height) / (Math.max(sx, sz) * 1.6);
    return {box, scale, cx: (box.x0 + box.x1) / 2, cz: (box.z0 + box.z1) / 2};
}

// The body records of World.bodyOutlines (bindings/js): [kind, x, z, radius, n, n x-z
// vertices]; kind 0 sphere, 1 solid polytope, 2 container. A polytope is drawn
// as the convex hull of its projected vertices.
function bodyRecords(data) {
    const bodies = [];
    for (let i = 0; i + 5 <= data.length;) {
        const n = data[i + 4];
        const points = [];
        for (let j = 0; j < n; ++j) points.push([data[i + 5 + 2 * j], data[i + 6 + 2 * j]]);
        bodies.push({kind: data[i], x: data[i + 1], z: data[i + 2], radius: data[i + 3],
                     outline: hull(points)});
        i += 5 + 2 * n;
    }
    return bodies;
}

// Convex hull of 2-D points (monotone chain), counter-clockwise.
function hull(points) {
    if (points.length < 3) return points;
    points.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    const cross = (o, a, b) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
    const half = (list) => {
        const out = [];
        for (const p of list) {
            while (out.length >= 2 && cross(out[out.length - 2], out[out.length - 1], p) <= 0) out.pop();
            out.push(p);
        }
        out.pop();
        return out;
    };
    return half(points).concat(half(points.slice().reverse()));
}

function frameBox(frame, box) {
    extend(box, frame.tracers, 3);
    extend(box, frame.vortons, 3);
    for (const b of bodyRecords(frame.bodies)) {
        const edge = b.outline.length > 0 ? b.outline : [[b.x - b.radius, b.z - b.radius],
                                                           [b.x + b.radius, b.z + b.radius]];
        for (const [x, z] of edge) extend(box, [x, 0, z], 3);
    }
    return box;
}

function outside(points) {
    let n = 0;
    for (let i = 0; i < points.length; i += 3) {
        const [px, py] = toPixel(points[i], points[i + 2]);
        if (!(px >= 0 && px < canvas.width && py >= 0 && py < canvas.height)) ++n;
    }
    return n;
}

// The smoke's region and the bodies, seen along y.
function smokeBox(frame) {
    const box = {x0: smokeNow.min[0], x1: smokeNow.max[0], z0: smokeNow.min[2], z1: smokeNow.max[2]};
    for (const b of bodyRecords(frame.bodies)) {
        const edge = b.outline.length > 0 ? b.outline : [[b.x - b.radius, b.z - b.radius],
                                                           [b.x + b.radius, b.z + b.radius]];
        for (const [x, z] of edge) extend(box, [x, 0, z], 3);
    }
    return box;
}

// Framed on frame 0; zooms out (never in) when more than 2% of the tracers
// or vortons have left the canvas, so a travelling ring stays in view. The
// smoke's region grows the same way (smoke.js): the view holds it.
function updateView(frame) {
    if (frame.display === 'smoke' && smokeNow !== null) {
        const box = smokeBox(frame);
        const inside = view !== null && box.x0 >= view.box.x0 && box.x1 <= view.box.x1 &&
                       box.z0 >= view.box.z0 && box.z1 <= view.box.z1;
        if (inside) return;
        if (view !== null) {
            box.x0 = Math.min(box.x0, view.box.x0), box.x1 = Math.max(box.x1, view.box.x1);
            box.z0 = Math.min(box.z0, view.box.z0), box.z1 = Math.max(box.z1, view.box.z1);
        }
        view = viewOf(box, 1.08);
        return;
    }
    if (frame.tracers.length + frame.vortons.length === 0) {
        if (view === null) view = viewOf(frameBox(frame, {x0: Infinity, x1: -Infinity, z0: Infinity, z1: -Infinity}));
        return;
    }
    if (view === null) {
        view = viewOf(frameBox(frame, {x0: Infinity, x1: -Infinity, z0: Infinity, z1: -Infinity}));
        return;
    }
    const points = frame.tracers.length > 0 ? frame.tracers : frame.vortons;
    if (outside(points) * 50 > points.length / 3) view = viewOf(frameBox(frame, {...view.box}));
}

function toPixel(x, z) {
    return [canvas.width / 2 + (x - view.cx) * view.scale,
            canvas.height / 2 - (z - view.cz) * view.scale];
}

// Points as additive dots in an ImageData: fast enough for 262,144 tracers.
function splat(pixels, points, r, g, b) {
    const w = canvas.width, h = canvas.height;
    for (let i = 0; i < points.length; i += 3) {
        const [px, py] = toPixel(points[i], points[i + 2]);
        if (!(px >= 0 && px < w && py >= 0 && py < h)) continue;
        const k = ((py | 0) * w + (px | 0)) * 4;
        pixels[k] = Math.min(255, pixels[k] + r);
        pixels[k + 1] = Math.min(255, pixels[k + 1] + g);
        pixels[k + 2] = Math.min(255, pixels[k + 2] + b);
    }
}

function drawParticles(frame) {
    const image = context.createImageData(canvas.width, canvas.height);
    const pixels = image.data;
    for (let k = 0; k < pixels.length; k += 4) {
        pixels[k] = BACKGROUND[0], pixels[k + 1] = BACKGROUND[1], pixels[k + 2] = BACKGROUND[2];
        pixels[k + 3] = 255;
    }
    splat(pixels, frame.tracers, 70, 70, 80);
    splat(pixels, frame.vortons, 255, 140, 40);
    context.putImageData(image, 0, 0);
}

// The smoke ray-marched by WebGL2: the newest image the GPU finished for
// this view, or the background. Frames that come while the GPU is busy
// carry no smoke (ask); the newest one that did is drawn.
function drawSmoke() {
    if (smokeLayer === null) {
        smokeLayer = new SmokeLayer(canvas.width, canvas.height);
        page.webgl = smokeLayer.renderer.renderer;
    }
    const s = smokeNow;
    const image = smokeLayer.update(s, view, BACKGROUND, s.serial, {
        serial: s.serial, frame: s.frame, min: s.min, max: s.max, resolution: s.resolution,
        sigma: s.sigma, hash: s.hash, densest: s.densest, sight: s.sight});
    if (image !== null) {
        context.drawImage(smokeLayer.canvas, 0, 0);
    } else {
        context.fillStyle = 'rgb(' + BACKGROUND.join(',') + ')';
        context.fillRect(0, 0, canvas.width, canvas.height);
    }
    page.smoke = image;
}

// A gameplay scene's sight line: the two players' eyes and what the smoke
// lets through between them (eddy_smoke_transmittance, in the worker).
function drawSightLine(sight) {
    const [ax, ay] = toPixel(sight.from[0], sight.from[2]);
    const [bx, by] = toPixel(sight.to[0], sight.to[2]);
    const seen = sight.transmittance >= 0.1;
    context.save();
    context.setLineDash([6, 5]);
    context.strokeStyle = seen ? 'rgba(78, 203, 113, 0.9)' : 'rgba(255, 91, 91, 0.9)';
    context.lineWidth = 1.5;
    context.beginPath();
    context.moveTo(ax, ay);
    context.lineTo(bx, by);
    context.stroke();
    context.setLineDash([]);
    context.fillStyle = context.strokeStyle;
    context.font = '13px system-ui, sans-serif';
    for (const [x, y, name] of [[ax, ay, 'A'], [bx, by, 'B']]) {
        context.beginPath();
        context.arc(x, y, 5, 0, 2 * Math.PI);
        context.fill();
        context.fillText(name, x - 4, y - 9);
    }
    context.fillText('sight A-B: T = ' + sight.transmittance.toFixed(3) + (seen ? ' (seen)' : ' (hidden)'),
                     Math.min(ax, bx), Math.max(ay, by) + 20);
    context.restore();
}

function draw(frame) {
    if (frame.display === 'smoke' && smokeNow !== null) {
        drawSmoke();
    } else {
        drawParticles(frame);
        page.smoke = null;
    }
    context.strokeStyle = '#58a6ff';
    context.fillStyle = 'rgba(88, 166, 255, 0.25)';
    context.lineWidth = 2;
    for (const b of bodyRecords(frame.bodies)) {
        context.beginPath();
        if (b.kind === 0) {
            const [px, py] = toPixel(b.x, b.z);
            context.arc(px, py, Math.max(b.radius * view.scale, 2), 0, 2 * Math.PI);
        } else {
            b.outline.forEach(([x, z], j) => {
                const [px, py] = toPixel(x, z);
                if (j === 0) context.moveTo(px, py); else context.lineTo(px, py);
            });
            context.closePath();
        }
        if (b.kind !== 2) context.fill(); // a container is drawn as its walls only
        context.stroke();
    }
    if (frame.display === 'smoke' && smokeNow !== null && smokeNow.sight) drawSightLine(smokeNow.sight);
    page.view = {cx: view.cx, cz: view.cz, scale: view.scale, width: canvas.width,
                 height: canvas.height};
}

// ---------------------------------------------------------------- status

function logRow(frame, expected, ok) {
    const row = document.createElement('tr');
    row.innerHTML = '<td>' + frame.frame + '</td><td>' + frame.hash + '</td><td>' +
                    (expected || '–') + '</td><td class="' + (ok ? 'match">✓' : 'diverged">✗') +
                    '</td>';
    const body = $('log').tBodies[0];
    body.insertBefore(row, body.firstChild);
    while (body.rows.length > LOG_ROWS) body.deleteRow(-1);
}

function check(frame) {
    const expected = golden.get(frame.frame);
    const ok = expected === frame.hash;
    if (ok) page.matched++;
    else {
        page.diverged++;
        if (page.firstDivergence === null) page.firstDivergence = frame.frame;
    }
    page.frame = frame.frame;
    $('frame').textContent = frame.frame + ' / ' + golden.lastFrame;
    $('hash').textContent = frame.hash;
    $('golden').textContent = expected || '(none)';
    $('mark').innerHTML = ok ? '<span class="match">✓ match</span>'
                             : '<span class="diverged">✗ diverged</span>';
    $('matched').textContent = page.matched;
    $('diverged').textContent = page.diverged;
    $('counts').textContent = frame.tracerCount + ' tracers, ' + frame.vortonCount + ' vortons, ' +
                              bodyRecords(frame.bodies).length + ' bodies';
    logRow(frame, expected, ok);
}

function showSmoke(frame) {
    const s = frame.display === 'smoke' ? smokeNow : null;  // may be null
    $('smoke').textContent = s === null ? '–'
        : s.resolution.join(' × ') + ' voxels over ' +
          s.min.map((v, a) => v.toFixed(2) + '..' + s.max[a].toFixed(2)).join(', ') + ' m; σ = ' +
          s.sigma.toPrecision(3) + ' m² per tracer; light from (' + s.light.join(', ') + ')';
    $('smoke-hash').textContent = s === null ? '–' : s.hash;
}

function showVerdict() {
    const v = $('verdict');
    if (page.error) {
        v.innerHTML = '<span class="diverged">error: ' + page.error + '</span>';
    } else if (page.diverged > 0) {
        v.innerHTML = '<span class="diverged">✗ diverged from frame ' + page.firstDivergence +
                      '</span>';
    } else if (page.done) {
        v.innerHTML = '<span class="match">✓ all ' + page.matched +
                      ' frames match the golden</span>';
    } else {
        v.textContent = 'running…';
    }
}

// ---------------------------------------------------------------- the loop

// The worker steps; each frame it posts is checked against the golden as it
// arrives, and the next is asked for then, at most STEPS_PER_SECOND a
// second. Drawing follows on animation frames and shows the newest frame:
// a slow display, or a slow GPU ray-marching the smoke (SmokeLayer), shows
// fewer frames but never slows the simulation or its checks.
const STEPS_PER_SECOND = 60;
let latest = null;          // the newest frame from the worker, drawn or not
let asked = 0;              // performance.now() of the last 'next'
let stepping = false;       // a 'next' is in flight or waiting for its time

function onFrame(frame) {
    frame.serial = ++frameSerial;
    if (frame.smoke) smokeNow = {...frame.smoke, serial: frame.serial};
    latest = frame;
    schedule();
    if (frame.again) return;  // the same frame, drawn another way: checked already
    stepping = false;
    check(frame);
    page.done = frame.frame >= golden.lastFrame;
    showVerdict();
    if (!page.done && !paused) askNext();
    else smokeOfLastFrame();
}

// The run stopped (done or paused) on a frame that came while the GPU was
// busy: its smoke, to end on it.
function smokeOfLastFrame() {
    if (latest !== null && latest.display === 'smoke' && !latest.smoke) ask('again', true);
}

function askNext() {
    const run = runId;
    stepping = true;
    setTimeout(() => {
        if (run !== runId) return;
        if (paused) {
            stepping = false;
            smokeOfLastFrame();
            return;
        }
        asked = performance.now();
        ask('next');
    }, Math.max(0, asked + 1000 / STEPS_PER_SECOND - performance.now()));
}

// One animation frame: draw the newest frame. While drawing smoke, the
// canvas is composed again on every animation frame until the smoke image
// of the frame on screen is done.
function onAnimationFrame() {
    scheduled = false;
    const frame = latest;
    if (frame === null) return;
    try {
        if (frame !== shown || view === null) updateView(frame);
        if (frame !== shown) showSmoke(frame);
        shown = frame;
        draw(frame);
    } catch (error) {
        page.error = error.message;
        showVerdict();
        return;
    }
    page.drawnFrame = frame.frame;
    page.drawnDisplay = frame.display;
    if (smokeNow !== null && frame.display === 'smoke' &&
        (page.smoke === null || page.smoke.serial !== smokeNow.serial)) {
        schedule();
    }
}

function schedule() {
    if (!scheduled) requestAnimationFrame(onAnimationFrame);
    scheduled = true;
}

// The worker's next frame (or the current one again), drawn as the page
// says: with its smoke volume unless the GPU is still drawing the last one
// (a smoke volume it could not draw would be work lost), or when asked.
function ask(type, smoke) {
    page.display = $('display').value;
    worker.postMessage({type, display: page.display, light: LIGHTS[$('light').value],
                        smoke: smoke || smokeLayer === null || !smokeLayer.busy});
}

worker.onmessage = (event) => {
    const message = event.data;
    if (message.type === 'scenes') {
        scenes = message.scenes;
        const select = $('scene');
        select.innerHTML = '';
        for (const s of scenes) select.add(new Option(s.name, s.name));
        const wanted = new URLSearchParams(location.search).get('scene');
        if (wanted && scenes.some((s) => s.name === wanted)) select.value = wanted;
        const display = new URLSearchParams(location.search).get('display');
        if (display === 'particles' || display === 'smoke') $('display').value = display;
        for (const id of ['scene', 'restart', 'pause', 'display', 'light']) $(id).disabled = false;
        start(select.value);
    } else if (message.type === 'frame') {
        if (message.run === runId) onFrame(message);  // else a frame of the previous run
    } else if (message.type === 'error') {
        page.error = message.message;
        showVerdict();
    }
};
worker.onerror = (event) => {
    page.error = 'worker: ' + event.message;
    showVerdict();
};

async function start(scene) {
    const id = ++runId;
    Object.assign(page, {scene: null, frame: -1, lastFrame: 0, matched: 0, diverged: 0,
                         firstDivergence: null, done: false, error: null, drawnFrame: -1,
                         drawnDisplay: null, view: null, smoke: null});
    view = null;
    latest = shown = smokeNow = null;
    stepping = false;
    $('log').tBodies[0].innerHTML = '';
    const info = scenes.find((s) => s.name === scene);
    $('description').textContent = info ? info.description : '';
    try {
        golden = await fetchGolden(scene);
    } catch (error) {
        page.error = error.message;
        showVerdict();
        return;
    }
    if (id !== runId) return;  // another scene was picked meanwhile
    page.scene = scene;
    page.lastFrame = golden.lastFrame;
    showVerdict();
    page.display = $('display').value;
    worker.postMessage({type: 'start', scene, run: id, display: page.display, smoke: true,
                        light: LIGHTS[$('light').value]});
}

// Another display or light: a running page draws its next frame that way;
// a paused or finished one asks for its current frame again.
function redraw() {
    view = null;
    if (page.scene !== null && page.error === null && (paused || page.done)) ask('again', true);
}

$('scene').addEventListener('change', (event) => start(event.target.value));
$('restart').addEventListener('click', () => start($('scene').value));
$('pause').addEventListener('click', () => {
    paused = !paused;
    $('pause').textContent = paused ? 'resume' : 'pause';
    if (!paused && !page.done && page.scene !== null && !stepping) askNext();
    else if (paused && !stepping) smokeOfLastFrame();
});
$('display').addEventListener('change', redraw);
$('light').addEventListener('change', redraw);
