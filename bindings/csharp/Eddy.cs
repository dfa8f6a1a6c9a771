// SPDX-License-Identifier: MIT
// eddy for C#: P/Invoke bindings as Unity uses them (bindings/csharp/README.md).
//
// - Every struct that crosses is blittable (sequential, only value fields), so
//   the marshaller pins or copies bits and allocates nothing: World.Step, Hash,
//   VortonCount and the particle views allocate no managed memory.
// - The world definition is opaque here: its size and the offsets of the
//   fields these bindings set come from the C headers (EddyLayout.g.cs,
//   written by layout_gen.c), and its defaults from eddy_world_def_default.
// - Every struct that crosses is checked against the C layout once, before
//   the first world (LayoutCheck): a struct that lags behind the headers would
//   let eddy read or write past the managed one.
// - A failed call throws EddyException with eddy's status and message.
// - Worlds are created through eddy_world_create_checked with the version of
//   the headers the bindings were generated from: another library is refused.
using System;
using System.Collections.Generic;
using System.Reflection;
using System.Runtime.InteropServices;

namespace Eddy {

public enum Status {
    Ok = 0, InvalidArgument = 1, InvalidDef = 2, OutOfMemory = 3, WrongState = 4, NotFound = 5,
    NaN = 6, Thread = 7, Capacity = 8, IO = 20, Corrupt = 21, Truncated = 22, Version = 23,
    Fingerprint = 24, Diverged = 25,
}

public sealed class EddyException : Exception {
    public readonly Status Status;
    public EddyException(Status status, string message)
        : base(Native.StatusName(status) + ": " + message) { Status = status; }
}

[StructLayout(LayoutKind.Sequential)]
public struct Vec3 {
    public float X, Y, Z;
    public Vec3(float x, float y, float z) { X = x; Y = y; Z = z; }
}

[StructLayout(LayoutKind.Sequential)]
public struct Vorton {
    public Vec3 Position, Velocity, Vorticity;
    public float DensityDeviation;
    public int BirthFrame;
}

[StructLayout(LayoutKind.Sequential)]
public struct Tracer {
    public Vec3 Position, Velocity;
    public float DensityDeviation;
    public int BirthFrame;
}

[StructLayout(LayoutKind.Sequential)]
public unsafe struct FrameHash {
    public long Frame;
    public ulong Value;                 // eddy_frame_hash.frame_hash
    public fixed ulong Component[4];    // vortons, tracers, bodies, globals
}

// eddy_input: flags, gravity, wind and the command arrays (pointers into
// native or pinned memory the caller keeps alive for the call): emitter and
// body commands, blasts (eddy_blast) and bullets (eddy_bullet).
[StructLayout(LayoutKind.Sequential)]
public struct Input {
    public const uint SetGravity = 1u << 0, SetWind = 1u << 1;
    public uint Flags;
    public Vec3 Gravity, Wind;
    public IntPtr EmitterCommands;
    public int EmitterCommandCount;
    public IntPtr BodyCommands;
    public int BodyCommandCount;
    public IntPtr Blasts;
    public int BlastCount;
    public IntPtr Bullets;
    public int BulletCount;
}

// A particle view: pointers into the world's own arrays (no copy), valid until
// the world next changes (include/eddy/view.h).
[StructLayout(LayoutKind.Sequential)]
public unsafe struct ParticleView {
    public int Count;
    public long Frame;
    public float* PositionX, PositionY, PositionZ;
    public float* VelocityX, VelocityY, VelocityZ;
    public float* VorticityX, VorticityY, VorticityZ;
    public float* DensityDeviation;
    public int* BirthFrame;
    public ulong* Id;
    public ulong StateCounter;          // World.StateCounter when the view was taken
}

// eddy_bytes: a buffer eddy allocates and grows (snapshots); free with Dispose.
[StructLayout(LayoutKind.Sequential)]
public struct NativeBytes {
    public IntPtr Data;
    public UIntPtr Size, Capacity;
}

// eddy_world_def as bytes; defaults from the library.
[StructLayout(LayoutKind.Sequential, Size = Layout.WorldDefSize)]
public unsafe struct WorldDef {
    fixed byte bytes[Layout.WorldDefSize];
    public static WorldDef Default() { return Native.eddy_world_def_default(); }
    public int WorkerCount {
        get { fixed (byte* p = bytes) return *(int*)(p + Layout.WorldDefWorkerCount); }
        set { fixed (byte* p = bytes) *(int*)(p + Layout.WorldDefWorkerCount) = value; }
    }
    public float Dt {
        get { fixed (byte* p = bytes) return *(float*)(p + Layout.WorldDefDt); }
        set { fixed (byte* p = bytes) *(float*)(p + Layout.WorldDefDt) = value; }
    }
    public ulong Seed {
        get { fixed (byte* p = bytes) return *(ulong*)(p + Layout.WorldDefSeed); }
        set { fixed (byte* p = bytes) *(ulong*)(p + Layout.WorldDefSeed) = value; }
    }
}

[StructLayout(LayoutKind.Sequential, Size = Layout.RecorderDefSize)]
public unsafe struct RecorderDef {
    fixed byte bytes[Layout.RecorderDefSize];
    public static RecorderDef Default() { return Native.eddy_recorder_def_default(); }
}

// The structs above against the C headers EddyLayout.g.cs was generated from
// (Layout.Mirrors, written by layout_gen.c): the size, the offset of every
// field, and no C# field without its C counterpart. A C struct that gains a
// field Eddy.cs lacks is caught by its size. Eddy.cs is written by hand and
// the generated file follows the headers, so this is where they meet: a view
// 8 bytes short of eddy_particle_view once let eddy overwrite mono's frame
// record on the stack, and mono crashed at the next exception.
public static class LayoutCheck {
    // null when every struct matches, else one line per difference.
    public static string Mismatches() {
        var bad = new List<string>();
        foreach (object[] m in Layout.Mirrors) Compare(m, bad);
        return bad.Count == 0 ? null : string.Join("\n", bad.ToArray());
    }
    public static int StructCount { get { return Layout.Mirrors.Length; } }

    static void Compare(object[] mirror, List<string> bad) {
        var type = (Type)mirror[0];
        int size = (int)mirror[1], managed = Marshal.SizeOf(type);
        if (managed != size)
            bad.Add(type.Name + ": " + managed + " bytes in C#, " + size + " in C (a field added or removed?)");
        var listed = new HashSet<string>();
        for (int i = 2; i + 1 < mirror.Length; i += 2) {
            var name = (string)mirror[i];
            int offset = (int)mirror[i + 1];
            listed.Add(name);
            if (type.GetField(name, BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic) == null) {
                bad.Add(type.Name + "." + name + ": missing in C# (at " + offset + " in C)");
                continue;
            }
            long at = Marshal.OffsetOf(type, name).ToInt64();
            if (at != offset) bad.Add(type.Name + "." + name + ": at " + at + " in C#, " + offset + " in C");
        }
        foreach (var f in type.GetFields(BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic))
            if (!listed.Contains(f.Name))
                bad.Add(type.Name + "." + f.Name + ": no C counterpart listed in layout_gen.c");
    }
}

public static class Native {
    public const string Lib = "eddy";          // libeddy.so, eddy.dll, libeddy.dylib
    public const string ReplayLib = "eddy_replay";
    const CallingConvention C = CallingConvention.Cdecl;

    [DllImport(Lib, CallingConvention = C)] public static extern IntPtr eddy_status_name(Status s);
    [DllImport(Lib, CallingConvention = C)] public static extern IntPtr eddy_version_string();
    [DllImport(Lib, CallingConvention = C)] public static extern WorldDef eddy_world_def_default();
    [DllImport(Lib, CallingConvention = C)]
    public static extern Status eddy_world_create_checked(ref WorldDef def, out IntPtr world, int headerVersion);
    [DllImport(Lib, CallingConvention = C)] public static extern void eddy_world_destroy(IntPtr world);
    [DllImport(Lib, CallingConvention = C)] public static extern IntPtr eddy_last_error_message();
    [DllImport(Lib, CallingConvention = C)] public static extern IntPtr eddy_world_error_message(IntPtr world);
    [DllImport(Lib, CallingConvention = C)]
    public static extern Status eddy_world_add_vortons(IntPtr world, [In] Vorton[] v, int count);
    [DllImport(Lib, CallingConvention = C)]
    public static extern Status eddy_world_add_tracers(IntPtr world, [In] Tracer[] t, int count);
    [DllImport(Lib, CallingConvention = C)] public static extern Status eddy_world_step(IntPtr world, IntPtr input);
    [DllImport(Lib, CallingConvention = C)]
    public static extern Status eddy_world_step(IntPtr world, ref Input input);
    [DllImport(Lib, CallingConvention = C)] public static extern long eddy_world_frame(IntPtr world);
    [DllImport(Lib, CallingConvention = C)] public static extern Status eddy_world_reserve(IntPtr world, int vortons, int tracers);
    [DllImport(Lib, CallingConvention = C)] public static extern int eddy_world_vorton_count(IntPtr world);
    [DllImport(Lib, CallingConvention = C)] public static extern int eddy_world_tracer_count(IntPtr world);
    [DllImport(Lib, CallingConvention = C)] public static extern FrameHash eddy_world_hash(IntPtr world);
    [DllImport(Lib, CallingConvention = C)] public static extern ParticleView eddy_world_view_tracers(IntPtr world);
    [DllImport(Lib, CallingConvention = C)] public static extern ParticleView eddy_world_view_vortons(IntPtr world);
    [DllImport(Lib, CallingConvention = C)] public static extern ulong eddy_world_state_counter(IntPtr world);
    [DllImport(Lib, CallingConvention = C)] public static extern Status eddy_world_snapshot(IntPtr world, ref NativeBytes b);
    [DllImport(Lib, CallingConvention = C)]
    public static extern Status eddy_world_restore(IntPtr world, IntPtr data, UIntPtr size, byte[] message, UIntPtr messageSize);
    [DllImport(Lib, CallingConvention = C)] public static extern void eddy_bytes_free(ref NativeBytes b);

    [DllImport(ReplayLib, CallingConvention = C)] public static extern RecorderDef eddy_recorder_def_default();
    [DllImport(ReplayLib, CallingConvention = C)]
    public static extern Status eddy_recorder_create_file(IntPtr world, ref RecorderDef def,
        [MarshalAs(UnmanagedType.LPStr)] string path, out IntPtr recorder, byte[] message, UIntPtr messageSize);
    [DllImport(ReplayLib, CallingConvention = C)] public static extern Status eddy_recorder_step(IntPtr recorder, IntPtr input);
    [DllImport(ReplayLib, CallingConvention = C)] public static extern Status eddy_recorder_finish(IntPtr recorder);
    [DllImport(ReplayLib, CallingConvention = C)] public static extern void eddy_recorder_destroy(IntPtr recorder);
    [DllImport(ReplayLib, CallingConvention = C)] public static extern IntPtr eddy_recorder_error_message(IntPtr recorder);

    public static string StatusName(Status s) { return Marshal.PtrToStringAnsi(eddy_status_name(s)); }
    public static string Text(byte[] message) {
        int n = Array.IndexOf(message, (byte)0);
        return System.Text.Encoding.ASCII.GetString(message, 0, n < 0 ? message.Length : n);
    }
}

// A world. Not thread-safe (as in C); Dispose destroys it.
public sealed class World : IDisposable {
    // Checked once, before the first world (LayoutCheck).
    static readonly string layoutMismatch = LayoutCheck.Mismatches();
    IntPtr handle;
    public IntPtr Handle { get { return handle; } }

    static void CheckLayout() {
        if (layoutMismatch != null)
            throw new EddyException(Status.Version, "these bindings do not match the C headers of eddy " +
                                    Layout.HeaderVersionString + ":\n" + layoutMismatch);
    }

    public World(WorldDef def) {
        CheckLayout();
        Status s = Native.eddy_world_create_checked(ref def, out handle, Layout.HeaderVersion);
        if (s != Status.Ok) throw new EddyException(s, Marshal.PtrToStringAnsi(Native.eddy_last_error_message()));
    }
    // Takes ownership of a world created in C (a scene builder, a player);
    // destroys it if the layout check fails.
    public World(IntPtr world) {
        if (layoutMismatch != null) Native.eddy_world_destroy(world);
        CheckLayout();
        handle = world;
    }

    void Check(Status s) {
        if (s != Status.Ok) throw new EddyException(s, Marshal.PtrToStringAnsi(Native.eddy_world_error_message(handle)));
    }
    public void AddVortons(Vorton[] v) { Check(Native.eddy_world_add_vortons(handle, v, v.Length)); }
    public void AddTracers(Tracer[] t) { Check(Native.eddy_world_add_tracers(handle, t, t.Length)); }
    // input: a native eddy_input (IntPtr.Zero: none). Allocates nothing.
    /* Room for this workload up front (eddy_world_reserve): steps within it allocate nothing. */
    public void Reserve(int vortons, int tracers) { Check(Native.eddy_world_reserve(handle, vortons, tracers)); }
    public void Step(IntPtr input) { Check(Native.eddy_world_step(handle, input)); }
    public void Step(ref Input input) { Check(Native.eddy_world_step(handle, ref input)); }
    public long Frame { get { return Native.eddy_world_frame(handle); } }
    public int VortonCount { get { return Native.eddy_world_vorton_count(handle); } }
    public int TracerCount { get { return Native.eddy_world_tracer_count(handle); } }
    public FrameHash Hash() { return Native.eddy_world_hash(handle); }
    public ParticleView Tracers() { return Native.eddy_world_view_tracers(handle); }
    public ParticleView Vortons() { return Native.eddy_world_view_vortons(handle); }
    // Changes whenever the state may have changed (a view is current while it equals its StateCounter).
    public ulong StateCounter { get { return Native.eddy_world_state_counter(handle); } }

    // Snapshot into snap (grown by eddy as needed, reused without allocating).
    public void Snapshot(ref NativeBytes snap) {
        snap.Size = UIntPtr.Zero;
        Check(Native.eddy_world_snapshot(handle, ref snap));
    }
    public void Restore(NativeBytes snap) {
        var message = new byte[256];
        Status s = Native.eddy_world_restore(handle, snap.Data, snap.Size, message, (UIntPtr)message.Length);
        if (s != Status.Ok) throw new EddyException(s, Native.Text(message));
    }

    public void Dispose() {
        if (handle != IntPtr.Zero) Native.eddy_world_destroy(handle);
        handle = IntPtr.Zero;
    }
}

// Records a world into a replay file (eddy-verify --replay checks it).
public sealed class Recorder : IDisposable {
    IntPtr handle;
    public Recorder(World world, string path) {
        var def = RecorderDef.Default();
        var message = new byte[256];
        Status s = Native.eddy_recorder_create_file(world.Handle, ref def, path, out handle, message,
                                                    (UIntPtr)message.Length);
        if (s != Status.Ok) throw new EddyException(s, Native.Text(message));
    }
    void Check(Status s) {
        if (s != Status.Ok) throw new EddyException(s, Marshal.PtrToStringAnsi(Native.eddy_recorder_error_message(handle)));
    }
    public void Step(IntPtr input) { Check(Native.eddy_recorder_step(handle, input)); }
    public void Finish() { Check(Native.eddy_recorder_finish(handle)); }
    public void Dispose() {
        if (handle != IntPtr.Zero) Native.eddy_recorder_destroy(handle);
        handle = IntPtr.Zero;
    }
}

}
