// SPDX-License-Identifier: MIT
// The smoke of one frame, prepared in the worker for the page's WebGL2 ray
// marcher (raymarch.js): eddy's smoke volume (include/eddy/smoke.h, through
// the JS package) over the scene's room or a region fitted to its tracers,
// an extinction, and each voxel's optical depth toward the light.
//
// - Region: a gameplay scene's own volume (smoke_grenade: its room, 96 x 64 x
//   48). Otherwise fitted to the tracers when more than 2% of them are
//   outside it (and at the first frame): the 0.5-99.5% range of each axis
//   joined with the previous region (it only grows, like the page's view),
//   grown by 15% of the largest span on every side, cubic voxels,
//   VOXELS_LONG along the longest side.
// - Extinction sigma for the picture: one that brings the densest 2% of the
//   columns seen along the view (y) to optical depth 4 (as eddy-replay render
//   --volume chooses it), followed smoothly from frame to frame so the
//   picture does not flicker. A gameplay scene's own extinction (smoke_grenade:
//   2e-3 m^2 per tracer, meant for sight lines through the room) is used for
//   its sight line only: seen across the room it would show a silhouette.
// - Light: the optical depth from each voxel toward the light, swept layer
//   by layer from the side the light comes from (as eddy-replay render
//   --volume does, replay/cli/cli_volume.c): a voxel's is its neighbour's
//   toward the light, sampled bilinearly where the slanted ray crosses that
//   layer, plus the step between them. One pass over the voxels.
// For people, not for determinism: plain JavaScript floats.
const VOXELS_LONG = 64;
const OUTSIDE_LIMIT = 0.02;

export class SmokeFrames {
  constructor(eddy, scene) {
    const smoke = eddy.sceneSmoke(scene);
    this.eddy = eddy;
    this.sightLine = smoke.sightLine;
    this.volume = smoke.sightLine ? eddy.createSmokeVolume(smoke.volume) : null;
    this.fitted = !smoke.sightLine;
    this.sigma = 0;
  }

  destroy() {
    if (this.volume) this.volume.destroy();
    this.volume = null;
  }

  // The volume of the world's frame: {message, transfer} for postMessage.
  frame(world, light) {
    if (this.fitted) this.refit(world.tracers());
    if (this.volume === null) return {message: null, transfer: []};
    const v = this.volume;
    v.update(world);
    const rho = v.density();                       // a view over wasm memory
    const [nx, ny, nz] = v.resolution;
    const h = [0, 1, 2].map((a) => (v.max[a] - v.min[a]) / v.resolution[a]);
    const columns = columnDepths(rho, nx, ny, nz, h[1]);
    this.sigma = followSigma(this.sigma, columns.p98);
    const data = new Float32Array(2 * rho.length);  // (sigma rho, optical depth to the light)
    for (let k = 0; k < rho.length; ++k) data[2 * k] = this.sigma * rho[k];
    const smoky = occupied(rho, nx, ny, nz);
    if (smoky !== null) sweepLight(data, [nx, ny, nz], h, light, smoky);
    const message = {
      min: v.min, max: v.max, resolution: v.resolution, data, sigma: this.sigma, light,
      occupied: smoky,
      hash: v.hash(), frame: v.frame, tracers: v.tracerCount,
      densest: {x: v.min[0] + (columns.densest[0] + 0.5) * h[0],
                z: v.min[2] + (columns.densest[1] + 0.5) * h[2],
                depth: this.sigma * columns.max},
      sight: null,
    };
    if (this.sightLine) {
      const s = this.sightLine;
      const t = v.transmittance(world, s.extinction, [...s.from, ...s.to]);
      message.sight = {from: s.from, to: s.to, transmittance: t.transmittance[0]};
    }
    return {message, transfer: [data.buffer]};
  }

  // A new region when the tracers left this one (or there is none yet).
  refit(t) {
    if (t.count === 0) return;
    if (this.volume !== null && outsideCount(t, this.volume) <= OUTSIDE_LIMIT * t.count) return;
    const lo = [], hi = [];
    [t.positionX, t.positionY, t.positionZ].forEach((p, a) => {
      const sorted = Float32Array.from(p).sort();
      lo[a] = sorted[Math.floor(0.005 * (sorted.length - 1))];
      hi[a] = sorted[Math.ceil(0.995 * (sorted.length - 1))];
    });
    if (this.volume !== null) {
      for (let a = 0; a < 3; ++a) {
        lo[a] = Math.min(lo[a], this.volume.min[a]);
        hi[a] = Math.max(hi[a], this.volume.max[a]);
      }
    }
    const span = Math.max(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], 1e-2);
    const pad = 0.15 * span;
    const voxel = (span + 2 * pad) / VOXELS_LONG;
    const resolution = [0, 1, 2].map((a) =>
      Math.min(128, Math.max(4, Math.ceil((hi[a] - lo[a] + 2 * pad) / voxel))));
    const min = [0, 1, 2].map((a) => (lo[a] + hi[a]) / 2 - resolution[a] * voxel / 2);
    const max = [0, 1, 2].map((a) => (lo[a] + hi[a]) / 2 + resolution[a] * voxel / 2);
    if (this.volume) this.volume.destroy();
    this.volume = this.eddy.createSmokeVolume({min, max, resolution});
  }
}

// The voxels that hold smoke: {lo: [i, j, k], hi: [i, j, k]} (inclusive), or
// null when the volume is empty. The ray marcher skips the rest.
function occupied(rho, nx, ny, nz) {
  const lo = [nx, ny, nz], hi = [-1, -1, -1];
  for (let k = 0, v = 0; k < nz; ++k) {
    for (let j = 0; j < ny; ++j) {
      for (let i = 0; i < nx; ++i, ++v) {
        if (rho[v] > 0) {
          if (i < lo[0]) lo[0] = i;
          if (i > hi[0]) hi[0] = i;
          if (j < lo[1]) lo[1] = j;
          if (j > hi[1]) hi[1] = j;
          if (k < lo[2]) lo[2] = k;
          if (k > hi[2]) hi[2] = k;
        }
      }
    }
  }
  return hi[0] < 0 ? null : {lo, hi};
}

function outsideCount(t, v) {
  let n = 0;
  const [x0, y0, z0] = v.min, [x1, y1, z1] = v.max;
  for (let i = 0; i < t.count; ++i) {
    const x = t.positionX[i], y = t.positionY[i], z = t.positionZ[i];
    if (!(x >= x0 && x <= x1 && y >= y0 && y <= y1 && z >= z0 && z <= z1)) ++n;
  }
  return n;
}

// Integrals of density along y per (x, z) column: the densest column and
// the 98th percentile of the non-empty ones.
function columnDepths(rho, nx, ny, nz, hy) {
  const sums = new Float32Array(nx * nz);
  let max = 0, densest = [0, 0];
  for (let k = 0; k < nz; ++k) {
    for (let j = 0; j < ny; ++j) {
      const row = nx * (j + ny * k);
      for (let i = 0; i < nx; ++i) sums[i + nx * k] += rho[row + i] * hy;
    }
  }
  for (let k = 0; k < nz; ++k) {
    for (let i = 0; i < nx; ++i) {
      if (sums[i + nx * k] > max) max = sums[i + nx * k], densest = [i, k];
    }
  }
  const used = sums.filter((s) => s > 0).sort();
  const p98 = used.length ? used[Math.floor(0.98 * (used.length - 1))] : 0;
  return {max, densest, p98};
}

// Geometric smoothing toward the sigma that brings p98 to optical depth 4.
function followSigma(sigma, p98) {
  if (!(p98 > 0)) return sigma;
  const target = 4 / p98;
  return sigma > 0 ? sigma * Math.pow(target / sigma, 0.25) : target;
}

// data holds (sigma rho, tau) per voxel, x fastest; fills tau, the optical
// depth toward the light (direction `light`, world axes), sweeping along the
// axis m where the light's component is largest, from the light's side. The
// ray from a voxel crosses the next layer toward the light at the same
// fractional offset (dp, dq) for every voxel: four fixed bilinear weights.
// Only over the box of voxels that hold smoke and one around it (what the
// ray marcher reads); light reaches that box unattenuated.
function sweepLight(data, n, h, light, box) {
  let m = 0;
  for (let a = 1; a < 3; ++a) if (Math.abs(light[a]) > Math.abs(light[m])) m = a;
  const p = (m + 1) % 3, q = (m + 2) % 3;
  const step = light[m] > 0 ? 1 : -1;
  const dp = (light[p] / Math.abs(light[m])) * h[m] / h[p];
  const dq = (light[q] / Math.abs(light[m])) * h[m] / h[q];
  const len = h[m] / Math.abs(light[m]) * Math.hypot(light[0], light[1], light[2]);
  const stride = [2, 2 * n[0], 2 * n[0] * n[1]];
  const sm = stride[m], sp = stride[p], sq = stride[q], np = n[p], nq = n[q];
  const op = Math.floor(dp), oq = Math.floor(dq), fp = dp - op, fq = dq - oq;
  const w0 = (1 - fp) * (1 - fq), w1 = fp * (1 - fq), w2 = (1 - fp) * fq, w3 = fp * fq;
  const lo = box.lo.map((i) => Math.max(0, i - 1)), hi = box.hi.map((i, a) => Math.min(n[a] - 1, i + 1));
  const first = step > 0 ? hi[m] : lo[m], layers = hi[m] - lo[m] + 1;
  for (let s = 1; s < layers; ++s) {             // the first layer keeps tau 0
    const here = (first - step * s) * sm, near = here + step * sm;
    for (let b = lo[q]; b <= hi[q]; ++b) {
      const b0 = b + oq, b1 = b0 + 1;
      const qin0 = b0 >= 0 && b0 < nq, qin1 = b1 >= 0 && b1 < nq;
      for (let a = lo[p]; a <= hi[p]; ++a) {
        const a0 = a + op, a1 = a0 + 1;
        const pin0 = a0 >= 0 && a0 < np, pin1 = a1 >= 0 && a1 < np;
        const c = near + a0 * sp + b0 * sq;
        let tau = 0, rho = 0;
        if (pin0 && qin0) tau += w0 * data[c + 1], rho += w0 * data[c];
        if (pin1 && qin0) tau += w1 * data[c + sp + 1], rho += w1 * data[c + sp];
        if (pin0 && qin1) tau += w2 * data[c + sq + 1], rho += w2 * data[c + sq];
        if (pin1 && qin1) tau += w3 * data[c + sp + sq + 1], rho += w3 * data[c + sp + sq];
        const k = here + a * sp + b * sq;
        data[k + 1] = tau + 0.5 * (rho + data[k]) * len;
      }
    }
  }
}
