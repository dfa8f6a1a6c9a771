// SPDX-License-Identifier: MIT
// The C# bindings against the C goldens, run under mono by scripts/check_csharp.sh:
//   mono eddy_tests.exe GOLDEN_DIR REPLAY_OUT [scene ...]
// 1. every scene (or the ones named), stepped from C# at 1 and 4 workers,
//    matches every frame hash of golden/<scene>.golden;
// 2. snapshot and restore round-trip: a world restored to frame k steps on to
//    the same hashes;
// 3. stepping allocates no managed memory;
// 4. a world recorded from C# is written to REPLAY_OUT (eddy-verify --replay
//    then plays it back, hash for hash, at several worker counts);
// 5. errors arrive as EddyException with eddy's message;
// 6. before anything crosses: every struct the bindings pass matches the C
//    layout (LayoutCheck; a mismatch stops the test before any call), and a
//    C# Input and a view's last field reach the library and come back.
// The scenes are built by eddy's C scene builders (scenes/, a test library),
// then driven from C# through the bindings only. Exit code 0 when all pass.
using System;
using System.Collections.Generic;
using System.IO;
using System.Runtime.InteropServices;
using Eddy;

static class Scenes {
    const string Lib = "eddy_scenes";
    [DllImport(Lib)] public static extern Status eddy_scene_create(IntPtr name, ref WorldDef baseDef, out IntPtr world);
    [DllImport(Lib)] public static extern IntPtr eddy_scene_input_for(IntPtr name, long frame, IntPtr storage);
    [DllImport(Lib)] public static extern int eddy_scene_count();
}

static class EddyTests {
    static int failures;
    static void Expect(bool ok, string what) {
        if (!ok) { failures++; Console.WriteLine("FAIL: " + what); }
    }

    static List<ulong> ReadGolden(string path) {
        var hashes = new List<ulong>();
        foreach (var raw in File.ReadAllLines(path)) {
            var line = raw.Trim();
            if (line.Length == 0 || line[0] == '#' || !char.IsDigit(line[0])) continue;
            var f = line.Split(' ');
            if (long.Parse(f[0]) != hashes.Count) throw new Exception(path + ": frames out of order");
            hashes.Add(Convert.ToUInt64(f[1], 16));
        }
        return hashes;
    }

    static IntPtr sceneInput = Marshal.AllocHGlobal(Layout.SceneInputSize);

    static World SceneWorld(IntPtr name, int workers) {
        var def = WorldDef.Default();
        def.WorkerCount = workers;
        IntPtr w;
        Status s = Scenes.eddy_scene_create(name, ref def, out w);
        if (s != Status.Ok) throw new EddyException(s, "scene");
        return new World(w);
    }

    // Steps the scene through its golden frames; returns the first mismatch or -1.
    static long RunScene(IntPtr name, int workers, List<ulong> golden) {
        using (var w = SceneWorld(name, workers)) {
            if (w.Hash().Value != golden[0]) return 0;
            for (int f = 1; f < golden.Count; ++f) {
                w.Step(Scenes.eddy_scene_input_for(name, w.Frame, sceneInput));
                if (w.Hash().Value != golden[f]) return f;
            }
        }
        return -1;
    }

    static void SnapshotRoundTrip(IntPtr name, List<ulong> golden) {
        using (var w = SceneWorld(name, 2)) {
            var snap = new NativeBytes();
            for (int f = 0; f < 10; ++f) w.Step(Scenes.eddy_scene_input_for(name, w.Frame, sceneInput));
            w.Snapshot(ref snap);
            for (int round = 0; round < 2; ++round) {
                for (int f = 0; f < 10; ++f) w.Step(Scenes.eddy_scene_input_for(name, w.Frame, sceneInput));
                Expect(w.Frame == 20 && w.Hash().Value == golden[20], "frame 20 after a restore to 10");
                w.Restore(snap);
                Expect(w.Frame == 10 && w.Hash().Value == golden[10], "restored frame 10");
            }
            Native.eddy_bytes_free(ref snap);
        }
    }

    static void NoManagedAllocationPerStep(IntPtr name) {
        var counter = typeof(GC).GetMethod("GetAllocatedBytesForCurrentThread");
        using (var w = SceneWorld(name, 2)) {
            // room up front (eddy_world_reserve): the same bits, steps within it allocate nothing native
            w.Reserve(2 * w.VortonCount + 4096, 2 * w.TracerCount + 65536);
            var view = w.Tracers();
            w.Step(Scenes.eddy_scene_input_for(name, w.Frame, sceneInput)); // JIT everything once
            var h = w.Hash();
            GC.Collect();
            int gcBefore = GC.CollectionCount(0);
            // what reading the counter allocates itself (a boxed long through reflection)
            long first = counter != null ? (long)counter.Invoke(null, null) : 0;
            long before = counter != null ? (long)counter.Invoke(null, null) : 0;
            long own = before - first;
            float sum = 0;
            for (int f = 0; f < 20; ++f) {
                w.Step(Scenes.eddy_scene_input_for(name, w.Frame, sceneInput));
                h = w.Hash();
                view = w.Tracers();
                unsafe { if (view.Count > 0) sum += view.PositionX[view.Count - 1]; }
            }
            long after = counter != null ? (long)counter.Invoke(null, null) : 0;
            long stepped = after - before - own;
            Expect(stepped == 0, "20 steps allocated " + stepped + " managed bytes");
            Expect(GC.CollectionCount(0) == gcBefore, "a collection ran while stepping");
            Console.WriteLine("20 steps, hashes and views: " +
                              (counter != null ? stepped + " managed bytes" : "no allocation counter; no collection") +
                              ", hash " + h.Value.ToString("x16") + ", last tracer x " + sum);
        }
    }

    static void RecordReplay(IntPtr name, string path) {
        using (var w = SceneWorld(name, 2)) {
            using (var r = new Recorder(w, path)) {
                for (int f = 0; f < 30; ++f) r.Step(Scenes.eddy_scene_input_for(name, w.Frame, sceneInput));
                r.Finish();
            }
            Console.WriteLine("recorded " + path + ": 30 frames, final hash " + w.Hash().Value.ToString("x16"));
        }
    }

    // World.Step(ref Input) with a C# Input: accepted, and it acts (the wind
    // moves the smoke); a view carries the world's state counter (its last field).
    static void InputAndView(IntPtr name) {
        using (var still = SceneWorld(name, 1))
        using (var windy = SceneWorld(name, 1)) {
            var none = new Input();
            var wind = new Input { Flags = Input.SetWind, Wind = new Vec3(2, 0, 0) };
            still.Step(ref none);
            windy.Step(ref wind);
            Expect(still.Frame == 1 && windy.Frame == 1, "a step with a C# Input");
            Expect(still.Hash().Value != windy.Hash().Value, "the wind of a C# Input changed nothing");
            var view = windy.Tracers();
            Expect(view.Frame == 1 && view.StateCounter == windy.StateCounter,
                   "view: frame " + view.Frame + ", state counter " + view.StateCounter + " (world " +
                   windy.StateCounter + ")");
            Console.WriteLine("a C# Input stepped, the wind acted; view state counter " + view.StateCounter);
        }
    }

    static void Errors() {
        var def = WorldDef.Default();
        def.Dt = -1.0f;
        try {
            new World(def);
            Expect(false, "a negative dt was accepted");
        } catch (EddyException e) {
            Expect(e.Status == Status.InvalidDef && e.Message.Contains("dt"), "message: " + e.Message);
        }
        using (var w = new World(WorldDef.Default())) {
            w.Step(IntPtr.Zero);
            try {
                w.AddVortons(new Vorton[1]);
                Expect(false, "vortons added after the first step");
            } catch (EddyException e) {
                Expect(e.Status == Status.WrongState && e.Message.Contains("first step"), "message: " + e.Message);
            }
        }
    }

    static int Main(string[] args) {
        string goldenDir = args[0], replayOut = args[1];
        Console.WriteLine("eddy " + Marshal.PtrToStringAnsi(Native.eddy_version_string()) + ", bindings for " +
                          Layout.HeaderVersionString + ", mono");
        string mismatch = LayoutCheck.Mismatches();
        if (mismatch != null) {
            // Stop here: a struct that differs from C corrupts memory on the first call that passes it.
            Console.WriteLine("FAIL: the bindings' structs differ from the C headers:\n" + mismatch);
            return 1;
        }
        Console.WriteLine("layout: " + LayoutCheck.StructCount + " structs match the C headers (size, every field)");
        var scenes = new List<string>();
        for (int i = 2; i < args.Length; ++i) scenes.Add(args[i]);
        if (scenes.Count == 0)
            foreach (var f in Directory.GetFiles(goldenDir, "*.golden")) scenes.Add(Path.GetFileNameWithoutExtension(f));
        scenes.Sort(StringComparer.Ordinal);
        foreach (var scene in scenes) {
            var golden = ReadGolden(Path.Combine(goldenDir, scene + ".golden"));
            IntPtr name = Marshal.StringToHGlobalAnsi(scene);
            foreach (int workers in new[] {1, 4}) {
                long bad = RunScene(name, workers, golden);
                Expect(bad < 0, scene + " at " + workers + " workers: frame " + bad + " differs from the golden");
            }
            Console.WriteLine(scene + ": " + (golden.Count - 1) + " frames at 1 and 4 workers match the golden");
            Marshal.FreeHGlobal(name);
        }
        IntPtr ball = Marshal.StringToHGlobalAnsi("ball_through_smoke");
        SnapshotRoundTrip(ball, ReadGolden(Path.Combine(goldenDir, "ball_through_smoke.golden")));
        NoManagedAllocationPerStep(ball);
        InputAndView(ball);
        RecordReplay(ball, replayOut);
        Errors();
        Console.WriteLine(failures == 0 ? "csharp: all passed" : "csharp: " + failures + " failures");
        return failures == 0 ? 0 : 1;
    }
}
