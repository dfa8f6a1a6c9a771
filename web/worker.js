// eddy in a Web Worker: steps one frame per request from the page, so the
// page's main thread never waits for the simulation (README.md in this folder).
// A module worker on eddy's JavaScript package (bindings/js, copied to
// eddy-js/ beside the page): the same API a game uses.
//
// Messages in:  {type: 'start', scene, run, display, smoke, light}  create the scene's world (frame 0)
//               {type: 'next', display, smoke, light}   step one frame
//               {type: 'again', display, smoke, light}  the current frame again (display changed)
//                 display: 'smoke' or 'particles'; smoke: whether to build the
//                 frame's smoke volume (smoke.js; the page asks when it can draw
//                 it); light: [x, y, z] toward the light
// Messages out: {type: 'scenes', scenes: [{name, description}]}
//               {type: 'frame', run, scene, frame, hash, again, display, tracerCount,
//                vortonCount, tracers, vortons, bodies, smoke}
//                 tracers/vortons: Float32Array x,y,z,... (empty when drawing smoke);
//                 bodies: records [kind, x, z, radius, n, n x-z vertices]
//                 (World.bodyOutlines); smoke: SmokeFrames.frame's message or null
//               {type: 'error', message}
import { loadEddy } from './eddy-js/eddy.mjs';
import { SmokeFrames } from './smoke.js';

let eddy = null;
let world = null;
let smoke = null;
let scene = null;
let run = 0;          // the page's run id, echoed in every frame

// x, y, z per particle, copied out of the world's arrays (the views are
// typed arrays over wasm memory; the page gets its own copy to keep).
function interleave(view) {
    const out = new Float32Array(view.count * 3);
    for (let i = 0; i < view.count; ++i) {
        out[3 * i] = view.positionX[i];
        out[3 * i + 1] = view.positionY[i];
        out[3 * i + 2] = view.positionZ[i];
    }
    return out;
}

function postFrame(message) {
    const particles = message.display !== 'smoke';
    const tracers = particles ? interleave(world.tracers()) : new Float32Array(0);
    const vortons = particles ? interleave(world.vortons()) : new Float32Array(0);
    const bodies = world.bodyOutlines();
    const volume = particles || !message.smoke ? {message: null, transfer: []}
                                               : smoke.frame(world, message.light);
    postMessage({type: 'frame', run, scene, frame: world.frame, hash: world.hash(),
                 again: message.type === 'again', display: message.display,
                 tracerCount: world.tracerCount,
                 vortonCount: world.vortonCount, tracers, vortons, bodies, smoke: volume.message},
                [tracers.buffer, vortons.buffer, bodies.buffer, ...volume.transfer]);
}

onmessage = (event) => {
    const message = event.data;
    if (eddy === null) return;
    try {
        if (message.type === 'start') {
            scene = message.scene;
            run = message.run;
            if (world) world.destroy();
            if (smoke) smoke.destroy();
            world = smoke = null;
            world = eddy.createScene(scene);
            smoke = new SmokeFrames(eddy, scene);
        } else if (message.type === 'next') {
            world.step();
        }
        postFrame(message);
    } catch (e) {
        postMessage({type: 'error', message: scene + ': ' + e.message});
    }
};

loadEddy().then((loaded) => {
    eddy = loaded;
    postMessage({type: 'scenes', scenes: eddy.scenes()});
}, (error) => postMessage({type: 'error', message: 'cannot load eddy-js/eddy_wasm.wasm: ' + error}));
