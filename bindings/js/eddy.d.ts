// SPDX-License-Identifier: MIT
// Types of eddy.mjs (bindings/js/README.md).
export declare class EddyError extends Error {
  readonly status: number;       // eddy_status, pinned values (include/eddy/base.h)
  readonly statusName: string;   // e.g. "EDDY_ERROR_INVALID_DEF"
}

export type Vec3 = [number, number, number];

export interface WorldDef {
  /** 1 in a build without pthreads. */
  workerCount?: number;
}

export interface Input {
  wind?: Vec3;
  gravity?: Vec3;
}

/** Typed arrays over wasm memory (no copy): valid until the world next changes. */
export interface ParticleView {
  count: number;
  positionX: Float32Array; positionY: Float32Array; positionZ: Float32Array;
  velocityX: Float32Array; velocityY: Float32Array; velocityZ: Float32Array;
  densityDeviation: Float32Array;
  birthFrame: Int32Array;
}
export interface VortonView extends ParticleView {
  vorticityX: Float32Array; vorticityY: Float32Array; vorticityZ: Float32Array;
}

export interface BodyState {
  id: [number, number];
  position: Vec3;
  orientation: [number, number, number, number];
}

export declare class World {
  step(input?: Input): void;
  readonly frame: number;
  readonly vortonCount: number;
  readonly tracerCount: number;
  /** 16 lower-case hex digits, as golden files write the frame hash. */
  hash(): string;
  tracers(): ParticleView;
  vortons(): VortonView;
  bodies(): BodyState[];
  /** Records [kind, x, z, radius, n, x0, z0, ...] for drawing: kind 0 sphere, 1 polytope, 2 container. */
  bodyOutlines(): Float32Array;
  snapshot(): Uint8Array;
  restore(snapshot: Uint8Array): void;
  destroy(): void;
}

/** A smoke volume's definition (include/eddy/smoke.h): region and voxels per axis. */
export interface SmokeVolumeDef {
  min: Vec3;
  max: Vec3;
  resolution: [number, number, number];
  /** Smoke each tracer carries (default 1). */
  tracerAmount?: number;
}

/** The density of the tracers' smoke over a region (docs/gameplay.md). */
export declare class SmokeVolume {
  readonly min: Vec3;
  readonly max: Vec3;
  readonly resolution: [number, number, number];
  readonly tracerAmount: number;
  readonly voxelCount: number;
  /** Accumulate the world's tracers as they are now (after a step). */
  update(world: World): void;
  /** Smoke per cubic metre, x fastest (i + nx (j + ny k)): a Float32Array over wasm
   *  memory, no copy; valid until the memory grows or the volume is destroyed. */
  density(): Float32Array;
  /** Frame of the world at the last update (-1 before the first). */
  readonly frame: number;
  /** Tracers that reached a voxel at the last update. */
  readonly tracerCount: number;
  /** 16 lower-case hex digits (eddy_smoke_volume_hash). */
  hash(): string;
  /** Beer-Lambert transmittance of segments (6 numbers each: from xyz, to xyz); copies. */
  transmittance(world: World | null, extinction: number, segments: ArrayLike<number>):
    { transmittance: Float32Array; opticalDepth: Float32Array };
  destroy(): void;
}

export interface SceneSmoke {
  /** The scene's room (smoke_grenade), or the library's default region. */
  volume: Required<SmokeVolumeDef>;
  /** The two players' eyes and the extinction of a gameplay scene; null otherwise. */
  sightLine: { from: Vec3; to: Vec3; extinction: number } | null;
}

export declare class Eddy {
  readonly version: string;
  scenes(): { name: string; description: string }[];
  createWorld(def?: WorldDef): World;
  /** A built-in scene; step() without input runs its scripted input. */
  createScene(name: string, def?: WorldDef): World;
  createSmokeVolume(def: SmokeVolumeDef): SmokeVolume;
  sceneSmoke(name: string): SceneSmoke;
}

export declare function loadEddy(options?: object): Promise<Eddy>;
