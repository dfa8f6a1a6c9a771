// SPDX-License-Identifier: MIT
// The smoke ray-marched in WebGL2: the page's orthographic view (x right,
// z up, looking along +y) of a smoke volume the worker prepared (smoke.js).
//
// The volume is a 3D texture, RG16F with linear filtering: R the extinction
// coefficient sigma rho (1/m), G the optical depth from the voxel toward the
// light. Each pixel marches front to back through the layers along y, one
// sample per voxel: a layer's opacity a = 1 - exp(-sigma rho h) adds
// a * (ambient + (1 - ambient) exp(-tau_light)) of light, scaled by the
// transmittance in front of it; what is left shows the background. The
// same model and colours as eddy-replay render --volume (replay/cli/cli_volume.c).
// Only the voxels that hold smoke (and one around them, for the filtering)
// are marched.
//
// SmokeLayer never makes the page wait for the GPU: one draw in flight at a
// time, a fence says when it is done, and the finished image is copied to a
// 2D canvas the page composes on every animation frame. A fast GPU shows
// every frame; a slow one (SwiftShader, the software GPU of a headless
// test) shows fewer, while the simulation and its checks go on at their pace.
// It marches at half the canvas's resolution (a quarter of the pixels) and
// scales the image up smoothly: the volume's voxels are several pixels wide,
// and its density is trilinear between them, so nothing is lost to see.
'use strict';

const SMOKE_VERTEX = `#version 300 es
void main() {
    // one triangle over the whole canvas
    vec2 p = vec2(gl_VertexID == 1 ? 3.0 : -1.0, gl_VertexID == 2 ? 3.0 : -1.0);
    gl_Position = vec4(p, 0.0, 1.0);
}`;

const SMOKE_FRAGMENT = `#version 300 es
precision highp float;
precision highp sampler3D;
uniform sampler3D u_volume;  // r: sigma rho (1/m), g: optical depth toward the light
uniform vec2 u_canvas;       // pixels
uniform vec3 u_view;         // centre x, centre z (m), pixels per metre
uniform vec3 u_lo, u_hi;     // the volume's region (m)
uniform int u_layers;        // voxels along y
uniform ivec2 u_march;       // the layers that hold smoke, first and last + 1
uniform vec4 u_box;          // x and z texture coordinates that hold smoke, lo and hi
uniform vec3 u_background;
out vec4 colour;

const float AMBIENT = 0.28;
const vec3 SMOKE = vec3(236.0, 236.0, 240.0) / 255.0;
const vec3 SHADE = vec3(0.80, 0.84, 1.0);

void main() {
    vec2 world = u_view.xy + (gl_FragCoord.xy - 0.5 * u_canvas) / u_view.z;
    vec2 uv = (world - u_lo.xz) / (u_hi.xz - u_lo.xz);
    if (any(lessThan(uv, u_box.xy)) || any(greaterThan(uv, u_box.zw))) {
        colour = vec4(u_background, 1.0);
        return;
    }
    float h = (u_hi.y - u_lo.y) / float(u_layers);
    float transmittance = 1.0, light = 0.0;
    for (int k = u_march.x; k < u_march.y; ++k) {
        vec2 s = texture(u_volume, vec3(uv.x, (float(k) + 0.5) / float(u_layers), uv.y)).rg;
        if (s.r <= 0.0) continue;
        float a = 1.0 - exp(-s.r * h);
        light += transmittance * a * (AMBIENT + (1.0 - AMBIENT) * exp(-s.g));
        transmittance *= 1.0 - a;
        if (transmittance < 0.004) break;
    }
    vec3 tint = light < 1e-6 ? vec3(1.0) : SHADE + (1.0 - SHADE) * min(light, 1.0);
    colour = vec4(min(SMOKE * light * tint + u_background * transmittance, vec3(1.0)), 1.0);
}`;

class SmokeRenderer {
    // Throws when the browser has no WebGL2.
    constructor(width, height) {
        this.canvas = document.createElement('canvas');
        this.canvas.width = width;
        this.canvas.height = height;
        const gl = this.gl = this.canvas.getContext('webgl2', {alpha: false, antialias: false,
                                                               depth: false,
                                                               preserveDrawingBuffer: true});
        if (!gl) throw new Error('this browser has no WebGL2');
        this.program = link(gl, SMOKE_VERTEX, SMOKE_FRAGMENT);
        this.uniforms = {};
        for (const name of ['u_volume', 'u_canvas', 'u_view', 'u_lo', 'u_hi', 'u_layers',
                            'u_march', 'u_box', 'u_background']) {
            this.uniforms[name] = gl.getUniformLocation(this.program, name);
        }
        this.texture = gl.createTexture();
        this.size = null;
        gl.bindTexture(gl.TEXTURE_3D, this.texture);
        for (const [k, v] of [[gl.TEXTURE_MIN_FILTER, gl.LINEAR], [gl.TEXTURE_MAG_FILTER, gl.LINEAR],
                              [gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE],
                              [gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE],
                              [gl.TEXTURE_WRAP_R, gl.CLAMP_TO_EDGE]]) {
            gl.texParameteri(gl.TEXTURE_3D, k, v);
        }
        this.vao = gl.createVertexArray();
        const info = gl.getExtension('WEBGL_debug_renderer_info');
        this.renderer = gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER);
    }

    // smoke: the worker's volume ({min, max, resolution, data, occupied});
    // view: the page's {cx, cz, scale}; background: [r, g, b] in 0..255.
    // Queues the drawing into this.canvas.
    draw(smoke, view, background) {
        const gl = this.gl, u = this.uniforms;
        const [nx, ny, nz] = smoke.resolution;
        gl.viewport(0, 0, this.canvas.width, this.canvas.height);
        gl.clearColor(background[0] / 255, background[1] / 255, background[2] / 255, 1);
        gl.clear(gl.COLOR_BUFFER_BIT);
        const o = smoke.occupied;
        if (o === null) return;
        gl.bindTexture(gl.TEXTURE_3D, this.texture);
        gl.pixelStorei(gl.UNPACK_ALIGNMENT, 4);
        const key = nx + 'x' + ny + 'x' + nz;
        if (this.size === key) {
            gl.texSubImage3D(gl.TEXTURE_3D, 0, 0, 0, 0, nx, ny, nz, gl.RG, gl.FLOAT, smoke.data);
        } else {
            gl.texImage3D(gl.TEXTURE_3D, 0, gl.RG16F, nx, ny, nz, 0, gl.RG, gl.FLOAT, smoke.data);
            this.size = key;
        }
        gl.useProgram(this.program);
        gl.uniform1i(u.u_volume, 0);
        gl.uniform2f(u.u_canvas, this.canvas.width, this.canvas.height);
        gl.uniform3f(u.u_view, view.cx, view.cz, view.scale);
        gl.uniform3fv(u.u_lo, smoke.min);
        gl.uniform3fv(u.u_hi, smoke.max);
        gl.uniform1i(u.u_layers, ny);
        gl.uniform2i(u.u_march, Math.max(0, o.lo[1] - 1), Math.min(ny, o.hi[1] + 2));
        gl.uniform4f(u.u_box, Math.max(0, (o.lo[0] - 1) / nx), Math.max(0, (o.lo[2] - 1) / nz),
                     Math.min(1, (o.hi[0] + 2) / nx), Math.min(1, (o.hi[2] + 2) / nz));
        gl.uniform3f(u.u_background, background[0] / 255, background[1] / 255, background[2] / 255);
        gl.bindVertexArray(this.vao);
        gl.drawArrays(gl.TRIANGLES, 0, 3);
    }
}

const SMOKE_RESOLUTION = 0.5;  // of the canvas's, on each axis

class SmokeLayer {
    constructor(width, height) {
        this.renderer = new SmokeRenderer(Math.ceil(width * SMOKE_RESOLUTION),
                                          Math.ceil(height * SMOKE_RESOLUTION));
        this.canvas = document.createElement('canvas');
        this.canvas.width = width;
        this.canvas.height = height;
        this.context = this.canvas.getContext('2d');
        this.job = null;     // the draw in flight: {sync, image}
        this.image = null;   // what this.canvas holds: {key, view, ...the caller's info}
    }

    get busy() { return this.job !== null; }

    // Takes the finished draw, if any, and starts one for smoke unless the
    // last one started was for the same key (a frame of a run) and view.
    // Returns the newest finished image's info when it was drawn with this
    // view (this.canvas holds it), else null.
    update(smoke, view, background, key, info) {
        const gl = this.renderer.gl;
        if (this.job !== null && gl.getSyncParameter(this.job.sync, gl.SYNC_STATUS) === gl.SIGNALED) {
            this.context.imageSmoothingQuality = 'high';
            this.context.drawImage(this.renderer.canvas, 0, 0, this.canvas.width, this.canvas.height);
            gl.deleteSync(this.job.sync);
            this.image = this.job.image;
            this.job = null;
        }
        const viewKey = view.cx + ' ' + view.cz + ' ' + view.scale;
        const latest = this.job !== null ? this.job.image : this.image;
        if (this.job === null && (latest === null || latest.key !== key || latest.view !== viewKey)) {
            const f = this.renderer.canvas.width / this.canvas.width;
            this.renderer.draw(smoke, {cx: view.cx, cz: view.cz, scale: view.scale * f}, background);
            this.job = {sync: gl.fenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0),
                        image: {...info, key, view: viewKey}};
            gl.flush();
        }
        return this.image !== null && this.image.view === viewKey ? this.image : null;
    }
}

function link(gl, vertex, fragment) {
    const program = gl.createProgram();
    for (const [type, source] of [[gl.VERTEX_SHADER, vertex], [gl.FRAGMENT_SHADER, fragment]]) {
        const shader = gl.createShader(type);
        gl.shaderSource(shader, source);
        gl.compileShader(shader);
        if (!gl.getShaderParameter(shader, gl.COMPILE_STATUS)) {
            throw new Error('smoke shader: ' + gl.getShaderInfoLog(shader));
        }
        gl.attachShader(program, shader);
    }
    gl.linkProgram(program);
    if (!gl.getProgramParameter(program, gl.LINK_STATUS)) {
        throw new Error('smoke shader: ' + gl.getProgramInfoLog(program));
    }
    return program;
}
