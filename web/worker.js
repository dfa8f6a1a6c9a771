// eddy in a Web Worker: steps one frame per request from the page, so the
// page's main thread never waits for the simulation (README.md in this folder).
// A module worker on eddy's JavaScript package (bindings/js, copied to
// eddy-js/ beside the page): the same API a game uses.
//
// Messages in:  {type: 'start', scene, run}  create the scene's world (frame 0)
//               {type: 'next'}          step one frame
// Messages out: {type: 'scenes', scenes: [{name, description}]}
//               {type: 'frame', run, scene, frame, hash, tracers, vortons, bodies}
//                 tracers/vortons: Float32Array x,y,z,...; bodies: records
//                 [kind, x, z, radius, n, n x-z vertices] (World.bodyOutlines)
//               {type: 'error', message}
import { loadEddy } from './eddy-js/eddy.mjs';

let eddy = null;
let world = null;
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

function postFrame() {
    const tracers = interleave(world.tracers());
    const vortons = interleave(world.vortons());
    const bodies = world.bodyOutlines();
    postMessage({type: 'frame', run, scene, frame: world.frame, hash: world.hash(), tracers, vortons,
                 bodies}, [tracers.buffer, vortons.buffer, bodies.buffer]);
}

onmessage = (event) => {
    const message = event.data;
    if (eddy === null) return;
    try {
        if (message.type === 'start') {
            scene = message.scene;
            run = message.run;
            if (world) world.destroy();
            world = null;
            world = eddy.createScene(scene);
            postFrame();
        } else if (message.type === 'next') {
            world.step();
            postFrame();
        }
    } catch (e) {
        postMessage({type: 'error', message: scene + ': ' + e.message});
    }
};

loadEddy().then((loaded) => {
    eddy = loaded;
    postMessage({type: 'scenes', scenes: eddy.scenes()});
}, (error) => postMessage({type: 'error', message: 'cannot load eddy-js/eddy_wasm.wasm: ' + error}));
