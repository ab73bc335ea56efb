#!/usr/bin/env python3
"""Measures every CPU speed target of the skinning kernels on this machine, side by side with ozz-animation.

The targets (BENCHMARKS.md, "Where things stand"), one thread unless said:
  - positions alone >= 1.3x ozz (a); `linear` >= 1.3x ozz (b); `cofactor`, `inverse-transpose`,
    `blend-inverse-transpose` >= 1.3x ozz (c) — 1M vertices, 100 joints, 4 influences;
  - `dual-quaternion`, `jacobian` and the reference rebuild against `linear` of the same kernel family in the same
    run: >= 0.5, >= 0.5, >= 0.3 — at 1M and at 100k vertices;
  - the whole `evaluate` of a 100k-vertex rig on two threads <= 15 ms (on an AVX-512 machine also with every path
    capped at AVX2, RIGSCOPE_ISA=avx2: what an AVX2-only machine runs).

How: `rounds` alternating pairs of ozz's `skinning_bench` (../shared/bench/ozz: build it with its build.sh) and
`rigscope bench --threads 1`, each RigScope row over the ozz row of its own pair; then `rounds` runs of `rigscope
bench` at 1M and at 100k, each row over the same run's `linear` row of its kernel family; then `rounds` runs of the
100k `evaluate` on two threads (alternating with the capped ones). Every figure printed is a median over the rounds
(with the min and max): single runs swing by 20-30% on shared virtual machines, ratios of runs taken together much
less. The columns are the kernel this machine selects for each method and every SIMD family it can run (an AVX-512
machine also runs the AVX2 kernels: the figures of an AVX2-only machine of the same core, as a proxy; there each
`rigscope bench` runs twice, the AVX2 column from the run capped at AVX2, since uncapped the AVX2 method kernels run
their build over AVX-512VL's registers, "AVX2+FMA, 32 registers", which an AVX2-only machine does not have). Python 3
standard library only.

    python3 packaging/bench-targets.py --ozz build-ozz/skinning_bench [--rigscope build/bin/rigscope] [--rounds 12]

Prints Markdown for BENCHMARKS.md: the machine (CPU model, family/model, ISA, date, load before and after), then the
table. Run it on an otherwise idle machine, with nothing building.
"""

import argparse
import datetime
import os
import re
import statistics
import subprocess
import sys

ROW = re.compile(r"^\|\s*([^|]+?)\s*\|\s*([\d.]+)\s*\|")
EVALUATE = re.compile(r"^evaluate .* of (\d+) vertices: ([\d.]+) ms on 1 thread, ([\d.]+) ms on (\d+) threads")

VS_OZZ = [  # (target, RigScope method id, bench row filter, ozz variant, threshold)
    ("positions alone >= 1.3x ozz (a)", "positions-only", "positions alone", "(a)", 1.3),
    ("`linear` >= 1.3x ozz (b)", "linear", None, "(b)", 1.3),
    ("`cofactor` >= 1.3x ozz (c)", "cofactor", None, "(c)", 1.3),
    ("`inverse-transpose` >= 1.3x ozz (c)", "inverse-transpose", None, "(c)", 1.3),
    ("`blend-inverse-transpose` >= 1.3x ozz (c)", "blend-inverse-transpose", None, "(c)", 1.3),
]
VS_LINEAR = [  # (target, method id, threshold)
    ("`dual-quaternion` >= 0.5x `linear`", "dual-quaternion", 0.5),
    ("`jacobian` >= 0.5x `linear`", "jacobian", 0.5),
    ("reference rebuild >= 0.3x `linear`", "rebuilt", 0.3),
]
FAMILIES = ["AVX-512", "AVX2"]  # SIMD kernel families, as the bench rows name them


def run(cmd, env=None):
    """A command's standard output (env: variables added to this process's); exits with its message when it fails."""
    p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, **env) if env else None)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()[-500:]}")
    return p.stdout


def rows(text):
    """The table rows of a bench's output: name -> 1-thread figure, in printed order (the first row of each
    method is the kernel the machine selects for it)."""
    out = {}
    for line in text.splitlines():
        m = ROW.match(line)
        if m and m.group(1) not in out:
            out[m.group(1)] = float(m.group(2))
    return out


def family(name):
    """The kernel family of a bench row: 'AVX-512', 'AVX2', 'AVX2 (32 registers)' (the AVX2 kernels' build for
    AVX-512 machines: no column of its own, only where a machine selects it) or 'scalar'."""
    inside = name[name.find("(") + 1:name.rfind(")")]
    if "AVX-512" in inside:
        return "AVX-512"
    if "AVX2" in inside:
        return "AVX2 (32 registers)" if "32 registers" in inside else "AVX2"
    return "scalar"


def method_rows(table, method, filt=None):
    """{'selected': row, family: row, ...} for one method: its rows in printed order (the rebuild's rows read
    'rebuilt (reference rebuild, AVX2)'; positions alone is the positions-only row marked 'positions alone', the other
    positions-only rows write normals and tangents too)."""
    found = {}
    for name in table:
        if not name.startswith(method + " "):
            continue
        if filt and filt not in name:
            continue
        found.setdefault("selected", name)  # the scalar path where the machine has no SIMD kernel for it
        f = family(name)
        if f != "scalar":
            found.setdefault(f, name)
    return found


def method_values(s, capped, method, filt=None):
    """{column: M vertices/s} of one method: 'selected' and the families of run s, where `capped` (the same bench
    capped at AVX2, or None) gives the AVX2 column instead."""
    out = {column: s[name] for column, name in method_rows(s, method, filt).items()}
    if capped is not None:
        out.pop("AVX2", None)
        name = method_rows(capped, method, filt).get("AVX2")
        if name:
            out["AVX2"] = capped[name]
    return out


def summary(values):
    return statistics.median(values), min(values), max(values)


def cell(values, threshold, below=False):
    if not values:
        return "–"
    med, lo, hi = summary(values)
    ok = med <= threshold if below else med >= threshold
    return f"{med:.2f} {'✔' if ok else '✘'} ({lo:.2f}–{hi:.2f})"


def lscpu():
    info = {}
    try:
        for line in run(["lscpu"]).splitlines():
            key, _, value = line.partition(":")
            info[key.strip()] = value.strip()
    except SystemExit:
        pass
    flags = set(info.get("Flags", "").split())
    isa = [f for f in ("avx512f", "avx512dq", "avx512bw", "avx512vl", "avx2", "fma") if f in flags]
    return (f"{info.get('Model name', '?')} (vendor {info.get('Vendor ID', '?')}, family {info.get('CPU family', '?')} "
            f"model {info.get('Model', '?')}), {info.get('CPU(s)', '?')} CPUs; flags: {' '.join(isa) or 'none'}; "
            f"L1d {info.get('L1d cache', '?')}, L2 {info.get('L2 cache', '?')}, L3 {info.get('L3 cache', '?')}")


def load():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "unknown"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rigscope", default=os.path.join(root, "build", "bin", "rigscope"))
    ap.add_argument("--ozz", default=os.path.join(root, "build-ozz", "skinning_bench"),
                    help="ozz-animation's skinning_bench (../shared/bench/ozz/build.sh)")
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--seconds", type=float, default=0.3, help="rigscope bench --seconds (ozz runs 0.5)")
    a = ap.parse_args()
    for path in (a.rigscope, a.ozz):
        if not os.access(path, os.X_OK):
            sys.exit(f"{path}: not an executable (build it first; see this script's help)")

    started = datetime.datetime.now(datetime.timezone.utc)
    # The processor as RigScope sees it: its instruction sets after any RIGSCOPE_ISA cap of this shell.
    sees = next((line[len("CPU: "):] for line in run([a.rigscope, "bench", "--vertices", "1000", "--seconds", "0.01",
                                                       "--methods", "linear"]).splitlines()
                 if line.startswith("CPU: ")), "?")
    print(f"**Machine:** {lscpu()}; RigScope runs: {sees}. **Date:** {started:%Y-%m-%d %H:%M} UTC. "
          f"**Load before:** {load()}.\n")
    bench = [a.rigscope, "bench", "--seconds", str(a.seconds), "--threads", "1"]
    ozz = [a.ozz, "--seconds", "0.5"]
    cap = {"RIGSCOPE_ISA": "avx2"} if "AVX-512" in sees else None

    def bench_runs(args):
        """The bench's rows, and where this machine has AVX-512 the same bench's rows capped at AVX2 (else None)."""
        s = rows(run(bench + args))
        return s, (rows(run(bench + args, cap)) if cap else None)

    # 1. Against ozz: alternating pairs, each ratio within its pair.
    methods = ",".join(m for _, m, _, _, _ in VS_OZZ)
    vs_ozz = {}  # (target, column) -> ratios
    ozz_rates = {}
    for r in range(a.rounds):
        if r % 2 == 0:
            o = rows(run(ozz))
            s, capped = bench_runs(["--methods", methods])
        else:
            s, capped = bench_runs(["--methods", methods])
            o = rows(run(ozz))
        variant = {k[:3]: v for k, v in o.items()}
        for key, value in variant.items():
            ozz_rates.setdefault(key, []).append(value)
        for target, method, filt, var, _ in VS_OZZ:
            for column, value in method_values(s, capped, method, filt).items():
                vs_ozz.setdefault((target, column), []).append(value / variant[var])
        print(f"<!-- round {r + 1}/{a.rounds} against ozz done -->", file=sys.stderr)

    # 2. Against linear of the same family in the same run, 1M and 100k.
    vs_linear = {}  # (target, size, column) -> ratios
    methods = "linear,dual-quaternion,jacobian,rebuilt"
    for size in (1000000, 100000):
        for r in range(a.rounds):
            s, capped = bench_runs(["--methods", methods, "--vertices", str(size)])
            linear = method_values(s, capped, "linear")
            for target, method, _ in VS_LINEAR:
                for column, value in method_values(s, capped, method).items():
                    # The selected rebuild is divided by the selected linear; a family by its own family.
                    base = linear.get(column)
                    if base:
                        vs_linear.setdefault((target, size, column), []).append(value / base)
            print(f"<!-- {size} vertices: round {r + 1}/{a.rounds} done -->", file=sys.stderr)

    # 3. The whole evaluate, 100k vertices, two threads: as this machine runs it, and where it has AVX-512 as an
    #    AVX2-only machine would (RIGSCOPE_ISA=avx2 caps every path: rig/platform/cpu_features.h), alternating.
    columns = ["selected"] + [f for f in FAMILIES if any(c == f for (_, c) in vs_ozz)]
    evaluate = {}  # column -> ms
    caps = [("selected", None)] + ([("AVX2", {"RIGSCOPE_ISA": "avx2"})] if "AVX-512" in columns else [])
    for r in range(a.rounds):
        for column, env in caps:
            out = run([a.rigscope, "bench", "--seconds", str(a.seconds), "--threads", "2", "--methods", "linear",
                       "--vertices", "100000"], env)
            for line in out.splitlines():
                m = EVALUATE.match(line)
                if m:
                    evaluate.setdefault(column, []).append(float(m.group(3)))

    names = {"selected": "kernel this machine selects", "AVX-512": "AVX-512 kernels", "AVX2": "AVX2 kernels"}
    print(f"{a.rounds} rounds each; medians (min–max). ozz 1 thread: " +
          ", ".join(f"{k} {statistics.median(v):.0f}" for k, v in sorted(ozz_rates.items())) + " M vertices/s.\n")
    print("| target | " + " | ".join(names[c] for c in columns) + " |")
    print("|---|" + "---:|" * len(columns))
    for target, _, _, _, threshold in VS_OZZ:
        print(f"| {target} | " + " | ".join(cell(vs_ozz.get((target, c), []), threshold) for c in columns) + " |")
    for target, _, threshold in VS_LINEAR:
        for size in (1000000, 100000):
            label = f"{target}, {'1M' if size == 1000000 else '100k'}"
            print(f"| {label} | " +
                  " | ".join(cell(vs_linear.get((target, size, c), []), threshold) for c in columns) + " |")
    def ms(values):
        if not values:
            return "–"
        med, lo, hi = summary(values)
        return f"{med:.1f} ms {'✔' if med <= 15.0 else '✘'} ({lo:.1f}–{hi:.1f})"

    print("| whole `evaluate`, 100k, 2 threads <= 15 ms | " +
          " | ".join(ms(evaluate.get(c, [])) for c in columns) + " |")
    print(f"\n**Load after:** {load()}; {(datetime.datetime.now(datetime.timezone.utc) - started).seconds // 60} "
          "minutes.")


if __name__ == "__main__":
    main()
