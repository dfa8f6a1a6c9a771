// The page's main thread: picks the scene, fetches its golden, draws the
// frames a Web Worker (worker.js) computes, one step per animation frame,
// and marks each frame's hash as matching the golden or diverged.
//
// The state of the run is also published as window.eddyPage for automated
// checks (tests/browser/): {scene, frame, lastFrame, matched, diverged,
// firstDivergence, done, error}.
'use strict';

const $ = (id) => document.getElementById(id);
const worker = new Worker('worker.js', {type: 'module'});
const canvas = $('view');
const context = canvas.getContext('2d');
const LOG_ROWS = 12;

let scenes = [];
let golden = null;          // Map frame -> hash, plus .lastFrame
let view = null;            // projection, fixed on frame 0
let paused = false;
let pending = null;         // the worker's latest frame, not drawn yet
let runId = 0;              // frames of a previous run are ignored
const page = window.eddyPage = {scene: null, frame: -1, lastFrame: 0, matched: 0, diverged: 0,
                                firstDivergence: null, done: false, error: null};

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

// Orthographic x-z view framing the box with a margin.
function viewOf(box) {
    if (!(box.x1 >= box.x0)) Object.assign(box, {x0: -1, x1: 1, z0: -1, z1: 1});
    const span = Math.max(box.x1 - box.x0, box.z1 - box.z0, 1e-3) * 1.6;
    const scale = Math.min(canvas.width, canvas.height) / span;
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

// Framed on frame 0; zooms out (never in) when more than 2% of the tracers
// or vortons have left the canvas, so a travelling ring stays in view.
function updateView(frame) {
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

function draw(frame) {
    const image = context.createImageData(canvas.width, canvas.height);
    const pixels = image.data;
    for (let k = 0; k < pixels.length; k += 4) {
        pixels[k] = 11, pixels[k + 1] = 12, pixels[k + 2] = 16, pixels[k + 3] = 255;
    }
    splat(pixels, frame.tracers, 70, 70, 80);
    splat(pixels, frame.vortons, 255, 140, 40);
    context.putImageData(image, 0, 0);
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
    $('counts').textContent = frame.tracers.length / 3 + ' tracers, ' +
                              frame.vortons.length / 3 + ' vortons, ' +
                              bodyRecords(frame.bodies).length + ' bodies';
    logRow(frame, expected, ok);
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

// One animation frame: draw the worker's latest frame, ask for the next.
function onAnimationFrame() {
    if (pending === null) return;
    const frame = pending;
    pending = null;
    updateView(frame);
    draw(frame);
    check(frame);
    page.done = frame.frame >= golden.lastFrame;
    showVerdict();
    if (!page.done && !paused) worker.postMessage({type: 'next'});
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
        for (const id of ['scene', 'restart', 'pause']) $(id).disabled = false;
        start(select.value);
    } else if (message.type === 'frame') {
        if (message.run !== runId) return;  // a frame of the previous run
        pending = message;
        requestAnimationFrame(onAnimationFrame);
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
                         firstDivergence: null, done: false, error: null});
    view = null;
    pending = null;
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
    worker.postMessage({type: 'start', scene, run: id});
}

$('scene').addEventListener('change', (event) => start(event.target.value));
$('restart').addEventListener('click', () => start($('scene').value));
$('pause').addEventListener('click', () => {
    paused = !paused;
    $('pause').textContent = paused ? 'resume' : 'pause';
    if (!paused && !page.done && page.scene !== null && pending === null) {
        worker.postMessage({type: 'next'});
    }
});
