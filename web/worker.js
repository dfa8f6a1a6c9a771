// eddy in a Web Worker: steps one frame per request from the page, so the
// page's main thread never waits for the simulation (README.md in this folder).
//
// Messages in:  {type: 'start', scene, run}  create the scene's world (frame 0)
//               {type: 'next'}          step one frame
// Messages out: {type: 'scenes', scenes: [{name, description}]}
//               {type: 'frame', run, scene, frame, hash, tracers, vortons, bodies}
//                 tracers/vortons: Float32Array x,y,z,...; bodies: records
//                 [kind, x, z, radius, n, n x-z vertices] (eddy_web.c)
//               {type: 'error', message}
'use strict';
importScripts('eddy_web.js');

let eddy = null;
let scene = null;
let run = 0;          // the page's run id, echoed in every frame

function call(name, returns, types, args) {
    return eddy.ccall(name, returns, types || [], args || []);
}

function copyPoints(count, perPoint) {
    const start = call('eddy_web_points', 'number') >> 2;
    return eddy.HEAPF32.slice(start, start + count * perPoint);
}

function fail(what) {
    postMessage({type: 'error', message: what + ': ' + call('eddy_web_message', 'string')});
}

function postFrame() {
    const hash = call('eddy_web_hash', 'string');
    const frame = call('eddy_web_frame', 'number');
    const tracers = copyPoints(call('eddy_web_fill_tracers', 'number'), 3);
    const vortons = copyPoints(call('eddy_web_fill_vortons', 'number'), 3);
    const bodies = copyPoints(call('eddy_web_fill_bodies', 'number'), 1);
    postMessage({type: 'frame', run, scene, frame, hash, tracers, vortons, bodies},
                [tracers.buffer, vortons.buffer, bodies.buffer]);
}

onmessage = (event) => {
    const message = event.data;
    if (eddy === null) return;
    if (message.type === 'start') {
        scene = message.scene;
        run = message.run;
        if (call('eddy_web_start', 'number', ['string'], [scene]) !== 0) return fail(scene);
        postFrame();
    } else if (message.type === 'next') {
        if (call('eddy_web_step', 'number') !== 0) return fail(scene);
        postFrame();
    }
};

createEddyModule().then((module) => {
    eddy = module;
    const scenes = [];
    const count = call('eddy_web_scene_count', 'number');
    for (let i = 0; i < count; ++i) {
        scenes.push({name: call('eddy_web_scene_name', 'string', ['number'], [i]),
                     description: call('eddy_web_scene_description', 'string', ['number'], [i])});
    }
    postMessage({type: 'scenes', scenes});
}, (error) => postMessage({type: 'error', message: 'cannot load eddy_web.wasm: ' + error}));
