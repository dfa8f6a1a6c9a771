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
//   const smoke = eddy.createSmokeVolume({ min: [-1, -1, -1], max: [1, 1, 1], resolution: [64, 64, 64] });
//   smoke.update(world);                               // after a step
//   const rho = smoke.density();                       // Float32Array over wasm memory, x fastest
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

  // A smoke volume (include/eddy/smoke.h, docs/gameplay.md): the tracers'
  // smoke accumulated into a density grid over min..max by update(world).
  createSmokeVolume({ min, max, resolution, tracerAmount = 1 }) {
    const m = this.m, q = this.scratch;
    m.HEAPF32.set([...min, ...max], (q + 64) >> 2);
    m.HEAP32.set(resolution, (q + 96) >> 2);
    const s = m._eddy_js_smoke_volume_create(q + 64, q + 96, tracerAmount, q);
    if (s !== 0) this.fail(s, m.UTF8ToString(m._eddy_smoke_error_message()));
    return new SmokeVolume(this, m.HEAPU32[q >> 2]);
  }

  // A built-in scene's smoke: the volume over its room ({ min, max, resolution,
  // tracerAmount }; the library's default for a scene without one) and, for a
  // gameplay scene (smoke_grenade), its sight line between the two players.
  sceneSmoke(name) {
    const m = this.m, q = this.scratch, f = (q + 64) >> 2;
    const nameBytes = m._malloc(name.length * 4 + 1);
    m.stringToUTF8(name, nameBytes, name.length * 4 + 1);
    const sight = m._eddy_js_scene_smoke(nameBytes, q + 64);
    m._free(nameBytes);
    const v = Array.from(m.HEAPF32.subarray(f, f + 17));
    return {
      volume: { min: v.slice(0, 3), max: v.slice(3, 6), resolution: v.slice(6, 9), tracerAmount: v[9] },
      sightLine: sight ? { from: v.slice(10, 13), to: v.slice(13, 16), extinction: v[16] } : null,
    };
  }
}

class SmokeVolume {
  constructor(eddy, ptr) {
    this.eddy = eddy;
    this.m = eddy.m;
    this.ptr = ptr;
    const m = this.m, f = (eddy.scratch + 64) >> 2;
    m._eddy_js_smoke_volume_def(ptr, eddy.scratch + 64);
    const v = Array.from(m.HEAPF32.subarray(f, f + 10));
    this.min = v.slice(0, 3);
    this.max = v.slice(3, 6);
    this.resolution = v.slice(6, 9);
    this.tracerAmount = v[9];
    this.voxelCount = this.resolution[0] * this.resolution[1] * this.resolution[2];
  }
  fail(s) { this.eddy.fail(s, this.m.UTF8ToString(this.m._eddy_smoke_error_message())); }
  // The world's tracers as they are now, accumulated (replacing what the volume held).
  update(world) {
    const s = this.m._eddy_smoke_volume_update(this.ptr, world.ptr);
    if (s !== 0) this.fail(s);
  }
  // Densities (smoke per cubic metre), x fastest: voxel (i, j, k) at
  // i + nx (j + ny k). A Float32Array over wasm memory, no copy: valid until
  // the memory grows or the volume is destroyed; it follows every update.
  density() {
    return new Float32Array(this.m.HEAPF32.buffer, this.m._eddy_smoke_volume_density(this.ptr),
                            this.voxelCount);
  }
  get frame() { return this.m._eddy_js_smoke_volume_frame(this.ptr); }
  get tracerCount() { return this.m._eddy_smoke_volume_tracer_count(this.ptr); }
  // 16 lower-case hex digits: equal on every peer with the same frame and region.
  hash() {
    const m = this.m, q = this.eddy.scratch;
    m._eddy_js_smoke_volume_hash(this.ptr, q);
    return hex32(m.HEAPU32[(q >> 2) + 1]) + hex32(m.HEAPU32[q >> 2]);
  }
  // Beer-Lambert transmittance of segments (6 numbers each: from x, y, z,
  // to x, y, z) through the smoke, with extinction sigma (m^2 per unit of
  // smoke): { transmittance, opticalDepth }, Float32Arrays (copies). world
  // gives the workers and FP mode (null: the calling thread).
  transmittance(world, extinction, segments) {
    const m = this.m, n = Math.floor(segments.length / 6);
    const seg = m._malloc(Math.max(1, n) * 24), out = m._malloc(Math.max(1, n) * 8);
    m.HEAPF32.set(Float32Array.from(segments).subarray(0, 6 * n), seg >> 2);
    const s = m._eddy_smoke_transmittance(world ? world.ptr : 0, this.ptr, extinction, seg, n, out,
                                          out + 4 * n);
    const result = { transmittance: m.HEAPF32.slice(out >> 2, (out >> 2) + n),
                     opticalDepth: m.HEAPF32.slice((out >> 2) + n, (out >> 2) + 2 * n) };
    m._free(seg);
    m._free(out);
    if (s !== 0) this.fail(s);
    return result;
  }
  destroy() {
    if (!this.ptr) return;
    this.m._eddy_smoke_volume_destroy(this.ptr);
    this.ptr = 0;
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
