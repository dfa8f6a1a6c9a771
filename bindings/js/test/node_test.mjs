// SPDX-License-Identifier: MIT
// The JS package under node: node test/node_test.mjs PACKAGE_DIR GOLDEN_DIR [scene ...]
// Every scene named (default: every golden) stepped through the package
// matches every frame of its golden; a snapshot/restore round trip; particle
// views over wasm memory; errors as EddyError. Exit code 0 when all pass.
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
