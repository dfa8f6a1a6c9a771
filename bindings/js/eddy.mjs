// SPDX-License-Identifier: MIT
// eddy for JavaScript and TypeScript (bindings/js/README.md): the wasm build
// of libeddy behind a small API. Types: eddy.d.ts.
//
//   import { loadEddy } from '@eddy/eddy';
//   const eddy = await loadEddy();
//   const world = eddy.createScene('vortex_ring');     // or eddy.createWorld({ workerCount: 1 })
//   world.step({ wind: [1, 0, 0] });
//   world.hash();                                      // '90358f0f8f2fdfad', as in golden files
//   const t = world.tracers();                         // Float32Arrays over wasm memory, no copy
//   world.destroy();
//
// Views are valid until the world next changes (a step, a restore) and the
// memory grows: take them again after each step. Errors throw EddyError with
// eddy's status name and message.
import createEddyWasm from './eddy_wasm.mjs';

export class EddyError extends Error {
  constructor(status, statusName, message) {
    super(`${statusName}: ${message}`);
    this.name = 'EddyError';
    this.status = status;
    this.statusName = statusName;
  }
}

export async function loadEddy(options = {}) {
  // Under node, the ES module emscripten 3.1.6 (Debian 12's) writes still
  // reads __dirname and require, which an ES module does not have, and looks
  // for the .wasm by a file: URL as a path: give it those and the bytes.
  if (typeof process === 'object' && process.versions && process.versions.node) {
    const { createRequire } = await import('node:module');
    const { fileURLToPath } = await import('node:url');
    const { dirname } = await import('node:path');
    const { readFileSync } = await import('node:fs');
    if (typeof globalThis.__dirname === 'undefined') {
      globalThis.require = createRequire(import.meta.url);
      globalThis.__dirname = dirname(fileURLToPath(import.meta.url));
    }
    if (!options.wasmBinary)
      options = { ...options, wasmBinary: readFileSync(new URL('./eddy_wasm.wasm', import.meta.url)) };
  }
  const m = await createEddyWasm(options);
  return new Eddy(m);
}

const hex32 = (x) => (x >>> 0).toString(16).padStart(8, '0');

class Eddy {
  constructor(m) {
    this.m = m;
    this.version = m.UTF8ToString(m._eddy_version_string());
    this.headerVersion = m._eddy_js_layout(7);
    this.layout = {
      defSize: m._eddy_js_layout(0), defWorkers: m._eddy_js_layout(1), inputSize: m._eddy_js_layout(2),
      inputWind: m._eddy_js_layout(3), inputGravity: m._eddy_js_layout(4), bytesSize: m._eddy_js_layout(5),
      sceneInputSize: m._eddy_js_layout(6),
    };
    // scratch that every call reuses: nothing is allocated per step
    this.scratch = m._malloc(256);          // out pointers, hashes, messages
    this.viewWords = m._malloc(48);
    this.input = m._malloc(this.layout.inputSize);
  }
  statusName(s) { return this.m.UTF8ToString(this.m._eddy_status_name(s)); }
  fail(status, message) { throw new EddyError(status, this.statusName(status), message); }

  // The built-in scenes: [{ name, description }].
  scenes() {
    const m = this.m, list = [];
    for (let i = 0; i < m._eddy_scene_count(); ++i)
      list.push({ name: m.UTF8ToString(m._eddy_js_scene_text(i, 0)),
                  description: m.UTF8ToString(m._eddy_js_scene_text(i, 1)) });
    return list;
  }

  createWorld(def = {}) {
    const m = this.m;
    const d = m._malloc(this.layout.defSize);
    m._eddy_js_world_def_default(d);
    if (def.workerCount !== undefined) m.HEAP32[(d + this.layout.defWorkers) >> 2] = def.workerCount;
    const s = m._eddy_world_create_checked(d, this.scratch, this.headerVersion);
    m._free(d);
    if (s !== 0) this.fail(s, m.UTF8ToString(m._eddy_last_error_message()));
    return new World(this, m.HEAPU32[this.scratch >> 2], null);
  }

  // A built-in scene (the goldens' scenes), with its scripted input per step.
  createScene(name, def = {}) {
    const m = this.m;
    const d = m._malloc(this.layout.defSize);
    m._eddy_js_world_def_default(d);
    if (def.workerCount !== undefined) m.HEAP32[(d + this.layout.defWorkers) >> 2] = def.workerCount;
    const nameBytes = m._malloc(name.length * 4 + 1);
    m.stringToUTF8(name, nameBytes, name.length * 4 + 1);
    const s = m._eddy_scene_create(nameBytes, d, this.scratch);
    m._free(d);
    if (s !== 0) {
      m._free(nameBytes);
      this.fail(s, m.UTF8ToString(m._eddy_last_error_message()));
    }
    return new World(this, m.HEAPU32[this.scratch >> 2], nameBytes);
  }
}

class World {
  constructor(eddy, ptr, sceneName) {
    this.eddy = eddy;
    this.m = eddy.m;
    this.ptr = ptr;
    this.sceneName = sceneName;
    this.sceneInput = sceneName ? this.m._malloc(eddy.layout.sceneInputSize) : 0;
  }
  check(s) {
    if (s !== 0) this.eddy.fail(s, this.m.UTF8ToString(this.m._eddy_world_error_message(this.ptr)));
  }
  // input: { wind?: [x, y, z], gravity?: [x, y, z] }, or nothing (a scene: its script).
  step(input) {
    const m = this.m;
    let p = 0;
    if (input) {
      const L = this.eddy.layout;
      p = this.eddy.input;
      m.HEAPU8.fill(0, p, p + L.inputSize);
      let flags = 0;
      if (input.gravity) { flags |= 1; m.HEAPF32.set(input.gravity, (p + L.inputGravity) >> 2); }
      if (input.wind) { flags |= 2; m.HEAPF32.set(input.wind, (p + L.inputWind) >> 2); }
      m.HEAPU32[p >> 2] = flags;
    } else if (this.sceneName) {
      p = m._eddy_js_scene_input_for(this.sceneName, this.frame, this.sceneInput);
    }
    this.check(m._eddy_world_step(this.ptr, p));
  }
  get frame() { return this.m._eddy_js_world_frame(this.ptr); }
  get vortonCount() { return this.m._eddy_world_vorton_count(this.ptr); }
  get tracerCount() { return this.m._eddy_world_tracer_count(this.ptr); }
  // The frame hash as 16 lower-case hex digits, as golden files write it.
  hash() {
    const m = this.m, q = this.eddy.scratch;
    m._eddy_js_world_hash(this.ptr, q);
    return hex32(m.HEAPU32[(q >> 2) + 1]) + hex32(m.HEAPU32[q >> 2]);
  }
  view(vortons) {
    const m = this.m, w = this.eddy.viewWords;
    m._eddy_js_view(this.ptr, vortons ? 1 : 0, w);
    const u = m.HEAPU32, n = u[w >> 2];
    const f = (k) => (u[(w >> 2) + k] ? new Float32Array(m.HEAPF32.buffer, u[(w >> 2) + k], n) : null);
    const v = {
      count: n, positionX: f(1), positionY: f(2), positionZ: f(3),
      velocityX: f(4), velocityY: f(5), velocityZ: f(6), densityDeviation: f(10),
      birthFrame: new Int32Array(m.HEAP32.buffer, u[(w >> 2) + 11], n),
    };
    if (vortons) Object.assign(v, { vorticityX: f(7), vorticityY: f(8), vorticityZ: f(9) });
    return v;
  }
  tracers() { return this.view(false); }
  vortons() { return this.view(true); }
  // Live bodies: [{ id: [index1, generation], position: [x, y, z], orientation: [x, y, z, w] }].
  bodies() {
    const m = this.m, cap = 64, out = m._malloc(cap * 36);
    const n = m._eddy_js_bodies(this.ptr, out, cap);
    const list = [];
    for (let i = 0; i < n; ++i) {
      const b = (out >> 2) + 9 * i;
      list.push({ id: [m.HEAPU32[b], m.HEAPU32[b + 1]],
                  position: Array.from(m.HEAPF32.subarray(b + 2, b + 5)),
                  orientation: Array.from(m.HEAPF32.subarray(b + 5, b + 9)) });
    }
    m._free(out);
    return list;
  }
  // Bodies for drawing, a Float32Array (a copy) of records [kind, x, z,
  // radius, n, x0, z0, ...]: kind 0 sphere, 1 polytope, 2 container; a
  // polytope's world-space vertices projected on x-z.
  bodyOutlines() {
    const m = this.m, cap = 64 * 133, out = m._malloc(cap * 4);
    const n = m._eddy_js_body_outlines(this.ptr, out, cap);
    const copy = m.HEAPF32.slice(out >> 2, (out >> 2) + n);
    m._free(out);
    return copy;
  }
  // A snapshot as a Uint8Array (a copy the caller owns).
  snapshot() {
    const m = this.m, L = this.eddy.layout, b = m._malloc(L.bytesSize);
    m.HEAPU8.fill(0, b, b + L.bytesSize);
    const s = m._eddy_world_snapshot(this.ptr, b);
    if (s !== 0) { m._free(b); this.check(s); }
    const data = m.HEAPU32[b >> 2], size = m.HEAPU32[(b >> 2) + 1];
    const copy = m.HEAPU8.slice(data, data + size);
    m._eddy_bytes_free(b);
    m._free(b);
    return copy;
  }
  restore(bytes) {
    const m = this.m, p = m._malloc(bytes.length), msg = this.eddy.scratch + 32;
    m.HEAPU8.set(bytes, p);
    const s = m._eddy_world_restore(this.ptr, p, bytes.length, msg, 200);
    m._free(p);
    if (s !== 0) this.eddy.fail(s, m.UTF8ToString(msg));
  }
  destroy() {
    if (!this.ptr) return;
    this.m._eddy_world_destroy(this.ptr);
    if (this.sceneName) { this.m._free(this.sceneName); this.m._free(this.sceneInput); }
    this.ptr = 0;
  }
}
