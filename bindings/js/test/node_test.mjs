// SPDX-License-Identifier: MIT
// The JS package under node: node test/node_test.mjs PACKAGE_DIR GOLDEN_DIR [scene ...]
// Every scene named (default: every golden) stepped through the package
// matches every frame of its golden; a snapshot/restore round trip; particle
// views over wasm memory; errors as EddyError; the smoke volume (its density
// a view over wasm memory that follows every update, the smoke it holds,
// sight lines, refusals) and, given EDDY_NATIVE_SMOKE="scene frame
// half_extent resolution hash" (what the native eddy-smoke-bench printed:
// scripts/check_wasm.sh), the same volume's hash in wasm. Exit code 0 when
// all pass.
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [pkg, goldenDir, ...named] = process.argv.slice(2);
const { loadEddy, EddyError } = await import(pathToFileURL(resolve(pkg, 'eddy.mjs')).href);
let failures = 0;
const expect = (ok, what) => { if (!ok) { failures += 1; console.log(`FAIL: ${what}`); } };

const golden = (scene) => readFileSync(join(goldenDir, `${scene}.golden`), 'utf8').split('\n')
  .map((l) => l.trim()).filter((l) => /^[0-9]/.test(l)).map((l) => l.split(/\s+/)[1]);

const eddy = await loadEddy();
console.log(`eddy ${eddy.version} (wasm, node ${process.version})`);
const scenes = named.length ? named
  : readdirSync(goldenDir).filter((f) => f.endsWith('.golden')).map((f) => f.slice(0, -7)).sort();
for (const scene of scenes) {
  const want = golden(scene);
  const world = eddy.createScene(scene);
  let bad = world.hash() === want[0] ? -1 : 0;
  for (let f = 1; f < want.length && bad < 0; ++f) {
    world.step();
    if (world.hash() !== want[f]) bad = f;
  }
  expect(bad < 0, `${scene}: frame ${bad} differs from the golden`);
  if (bad < 0) console.log(`${scene}: ${want.length - 1} frames match the golden`);
  world.destroy();
}

// snapshot and restore
{
  const want = golden('ball_through_smoke');
  const world = eddy.createScene('ball_through_smoke');
  for (let f = 0; f < 10; ++f) world.step();
  const snap = world.snapshot();
  for (let round = 0; round < 2; ++round) {
    for (let f = 0; f < 10; ++f) world.step();
    expect(world.frame === 20 && world.hash() === want[20], 'frame 20 after a restore');
    world.restore(snap);
    expect(world.frame === 10 && world.hash() === want[10], 'restored frame 10');
  }
  // views: typed arrays over wasm memory, the particles as the world holds them
  const t = world.tracers(), v = world.vortons();
  expect(t.count === world.tracerCount && t.positionX instanceof Float32Array &&
         t.positionX.length === t.count, 'tracer view');
  expect(v.count === world.vortonCount && v.vorticityZ.length === v.count, 'vorton view');
  expect(world.bodies().length >= 1, 'bodies');
  console.log(`snapshot ${snap.length} bytes round-trips; ${t.count} tracers, ${v.count} vortons viewed`);
  world.destroy();
}

// smoke volumes: the grenade's room after 40 frames
{
  const { volume: room, sightLine } = eddy.sceneSmoke('smoke_grenade');
  expect(room.min.join() === '-3,-2,-1.5' && room.max.join() === '3,2,1.5' &&
         room.resolution.join() === '96,64,48' && room.tracerAmount === 1, `room ${JSON.stringify(room)}`);
  expect(sightLine !== null && sightLine.from.join() === '-2.5,0,-0.5' &&
         sightLine.to.join() === '2.5,0,-0.5' && Math.abs(sightLine.extinction - 2e-3) < 1e-9,
         `sight line ${JSON.stringify(sightLine)}`);
  expect(eddy.sceneSmoke('vortex_ring').sightLine === null, 'vortex_ring has no sight line');
  const world = eddy.createScene('smoke_grenade');
  const smoke = eddy.createSmokeVolume(room);
  const rho = smoke.density();
  expect(rho instanceof Float32Array && rho.length === 96 * 64 * 48 && smoke.frame === -1 &&
         rho.every((x) => x === 0), 'an empty volume before its first update');
  for (let f = 0; f < 40; ++f) world.step();
  smoke.update(world);
  // the view taken before the update shows it: no copy (memory did not grow here)
  const now = smoke.density();
  expect(rho.length === now.length && rho.every((x, k) => x === now[k]) && rho.some((x) => x > 0),
         'the density view follows the update');
  // the tent kernel keeps each tracer's smoke: the volume holds the tracers that reached it
  const h = [0, 1, 2].map((a) => (room.max[a] - room.min[a]) / room.resolution[a]);
  let sum = 0;
  for (const x of now) sum += x;
  const held = sum * h[0] * h[1] * h[2];
  expect(smoke.frame === 40 && smoke.tracerCount === world.tracerCount &&
         Math.abs(held - world.tracerCount) < 1e-4 * world.tracerCount,
         `volume holds ${held} of ${world.tracerCount} tracers at frame ${smoke.frame}`);
  // the volume hash: 16 hex digits, the same for a second volume over the same room
  const again = eddy.createSmokeVolume(room);
  again.update(world);
  expect(/^[0-9a-f]{16}$/.test(smoke.hash()) && again.hash() === smoke.hash(), 'volume hash');
  again.destroy();
  // sight lines: through the grenade's column (x = 0, 0.3 m above the floor:
  // at frame 40 the column reaches z -1.05, natively T 0 from z -1.4 to -1.1),
  // beside the room (empty), and Beer-Lambert between the two outputs
  const lines = [-2.5, 0, -1.2, 2.5, 0, -1.2, -2.5, 5, -1.2, 2.5, 5, -1.2];
  const t = smoke.transmittance(world, sightLine.extinction, lines);
  expect(t.transmittance.length === 2 && t.transmittance[0] < 0.5 && t.transmittance[1] === 1 &&
         t.opticalDepth[1] === 0 &&
         Math.abs(t.transmittance[0] - Math.exp(-t.opticalDepth[0])) < 1e-5,
         `transmittance ${t.transmittance} depth ${t.opticalDepth}`);
  console.log(`smoke: ${held.toFixed(1)} of ${world.tracerCount} tracers in the room at frame 40, ` +
              `volume ${smoke.hash()}, T through the column ${t.transmittance[0].toFixed(4)}`);
  for (const [what, call, status] of [
    ['a NaN endpoint', () => smoke.transmittance(world, 1, [NaN, 0, 0, 1, 0, 0]), 'EDDY_ERROR_NAN'],
    ['a negative extinction', () => smoke.transmittance(world, -1, lines), 'EDDY_ERROR_INVALID_ARGUMENT'],
    ['a zero resolution', () => eddy.createSmokeVolume({ ...room, resolution: [0, 8, 8] }),
     'EDDY_ERROR_INVALID_DEF'],
    ['an empty region', () => eddy.createSmokeVolume({ ...room, max: room.min }), 'EDDY_ERROR_INVALID_DEF'],
  ]) {
    try {
      call();
      expect(false, `${what} was accepted`);
    } catch (e) {
      expect(e instanceof EddyError && e.statusName === status && e.message.length > status.length + 10,
             `${what}: ${e.message}`);
    }
  }
  smoke.destroy();
  world.destroy();
}

// the smoke volume has the native build's bits: a cube of half_extent at a
// resolution over the scene at a frame, as eddy-smoke-bench builds it
if (process.env.EDDY_NATIVE_SMOKE) {
  const [scene, frame, e, n, want] = process.env.EDDY_NATIVE_SMOKE.split(' ');
  const world = eddy.createScene(scene);
  while (world.frame < Number(frame)) world.step();
  const smoke = eddy.createSmokeVolume({ min: [-e, -e, -e].map(Number), max: [e, e, e].map(Number),
                                         resolution: [n, n, n].map(Number) });
  smoke.update(world);
  expect(smoke.hash() === want, `${scene} frame ${frame}: volume hash ${smoke.hash()}, native ${want}`);
  if (smoke.hash() === want) console.log(`smoke: ${scene} frame ${frame}, ${n}^3 voxels: volume hash ${want} as native`);
  smoke.destroy();
  world.destroy();
}

// errors
try {
  eddy.createScene('no_such_scene');
  expect(false, 'an unknown scene was accepted');
} catch (e) {
  expect(e instanceof EddyError && e.statusName === 'EDDY_ERROR_NOT_FOUND', `error: ${e.message}`);
}
{
  const world = eddy.createWorld({ workerCount: 1 });
  world.step({ wind: [1, 0, 0] });
  try {
    world.restore(new Uint8Array(8));
    expect(false, 'a bad snapshot was accepted');
  } catch (e) {
    expect(e instanceof EddyError && e.message.length > 20, `error: ${e.message}`);
  }
  world.destroy();
}
console.log(failures ? `js: ${failures} failures` : 'js: all passed');
process.exit(failures ? 1 : 0);
