#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# eddy-bench's JSON output (docs/bench.md): the keys a script reads are there
# and consistent, the velocity grid's shapes are listed in frame order, the
# options reach the world definition, and a bad option value is refused.
# Usage: check_bench_json.sh path/to/eddy-bench
set -euo pipefail
bench=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$bench" --scene vortex_ring --threads 1,2 --frames 4 --warmup 2 --pin none --json >"$tmp/default.json"
"$bench" --scene vortex_ring --threads 1 --frames 4 --warmup 2 --pin none --json \
    --treecode multipole --velocity direct-grid >"$tmp/direct.json"
# noise_cloud's box grows past a grid size within its first 100 frames with
# every velocity method (docs/bench.md): the shapes list must show the change.
"$bench" --scene noise_cloud --threads 2 --frames 100 --warmup 0 --pin none --json \
    --treecode multipole >"$tmp/cloud.json"

python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
def load(name):
    with open(f"{d}/{name}.json") as f:
        return json.load(f)
def check(ok, what):
    if not ok:
        print("FAIL:", what)
        sys.exit(1)
def check_runs(doc, name):
    for run in doc["runs"]:
        check(set(run["mean_ms"]) == set(run["median_ms"]), f"{name}: mean_ms and median_ms keys differ")
        check(run["mean_ms"]["step"] > 0.0, f"{name}: mean step time {run['mean_ms']['step']}")
        grids = run["grids"]
        check(len(grids) >= 1, f"{name}: no grid listed")
        check(grids[0]["from_frame"] == doc["warmup"] + 1,
              f"{name}: first grid from frame {grids[0]['from_frame']}, expected {doc['warmup'] + 1}")
        for a, b in zip(grids, grids[1:]):
            check(a["from_frame"] < b["from_frame"], f"{name}: grid frames out of order {grids}")
            check(a["cells"] != b["cells"], f"{name}: the same shape listed twice in a row {grids}")
        for g in grids:
            check(all(c >= 1 and c & (c - 1) == 0 for c in g["cells"]),
                  f"{name}: cells {g['cells']} not powers of two")
            check(g["from_frame"] <= run["final_frame"], f"{name}: grid after the last frame")
        check(run["grids_truncated"] is False, f"{name}: grids truncated")

default = load("default")
check(default["velocity"] == "treecode", f"default velocity {default['velocity']}")
check(default["treecode"] in ("multipole", "original"), f"treecode {default['treecode']}")
check(default["hashes_match"] is True, "1 and 2 workers reached different hashes")
check(default["runs"][0]["grids"] == default["runs"][1]["grids"], "grids differ between worker counts")
check_runs(default, "vortex_ring")

direct = load("direct")
check(direct["velocity"] == "direct-grid" and direct["treecode"] == "multipole",
      f"options not reported: {direct['velocity']}, {direct['treecode']}")
check(direct["runs"][0]["final_hash"] != default["runs"][0]["final_hash"],
      "--velocity direct-grid stepped the same state as the treecode")
check_runs(direct, "vortex_ring direct")

cloud = load("cloud")
check_runs(cloud, "noise_cloud")
grids = cloud["runs"][0]["grids"]
check(len(grids) >= 2, f"noise_cloud: one grid over 100 frames {grids}")
print("eddy-bench JSON: ok;", "noise_cloud grids", grids)
PY

set +e
"$bench" --velocity nope >"$tmp/out" 2>"$tmp/err"
code=$?
set -e
if [ "$code" -ne 2 ] || ! grep -q -- "--velocity" "$tmp/err"; then
    echo "FAIL: --velocity nope exited $code: $(cat "$tmp/err")"
    exit 1
fi
echo "eddy-bench refuses --velocity nope: ok"

# --opening-angle reaches the world (reported, and a different state) and
# refuses anything but a number in (0, 2].
"$bench" --scene vortex_ring --threads 1 --frames 4 --warmup 2 --pin none --json \
    --opening-angle 0.8 >"$tmp/theta.json"
python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
theta = json.load(open(f"{d}/theta.json"))
default = json.load(open(f"{d}/default.json"))
if abs(theta["opening_angle"] - 0.8) > 1e-6:
    print("FAIL: --opening-angle 0.8 reported as", theta["opening_angle"]); sys.exit(1)
if theta["runs"][0]["final_hash"] == default["runs"][0]["final_hash"]:
    print("FAIL: --opening-angle 0.8 stepped the default's state"); sys.exit(1)
print("eddy-bench --opening-angle 0.8: ok")
PY
for bad in nope 0 -1 2.5 nan inf 1.0x ""; do
    set +e
    "$bench" --opening-angle "$bad" --frames 1 >"$tmp/out" 2>"$tmp/err"
    code=$?
    set -e
    if [ "$code" -ne 2 ] || ! grep -q -- "--opening-angle" "$tmp/err"; then
        echo "FAIL: --opening-angle '$bad' exited $code: $(cat "$tmp/err")"
        exit 1
    fi
done
echo "eddy-bench refuses bad --opening-angle values: ok"
