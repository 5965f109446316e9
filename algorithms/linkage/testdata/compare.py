"""Times hcbench's linkages beside fastcluster and scipy on the same points, each run a process
of its own under /usr/bin/time: CPU seconds (user + system, the minimum of the repeats) and peak
resident memory (the maximum). The three run back to back for every method and size, so that a
busy machine slows them alike.

    go test -c -o /tmp/linkage.test ./algorithms/linkage
    /usr/bin/python3 algorithms/linkage/testdata/compare.py /tmp/linkage.test [sizes] [repeats]

sizes defaults to 5000,20000 (100000 and 200000: single and Ward linkage of vectors only), repeats
to 3.
Needs Debian's python3-fastcluster and python3-scipy (/usr/bin/python3) and GNU time. The points
are BenchmarkLinkage's: n uniform points in the unit square from SplitMix64 with seed 1
(uniformPoints in bench_test.go). hcbench's figures are those of the benchmark binary running
one iteration of BenchmarkLinkage/n=<n>/<method> (Euclidean distances, then Run; <method>-vectors:
Vectors); fastcluster's of fastcluster.linkage(X, method) (pdist, then its linkage) and
fastcluster.linkage_vector(X, method); scipy's of scipy.cluster.hierarchy.linkage(X, method).
Each Python process also reports the CPU seconds of the call alone (without starting Python and
importing numpy), in the column "call".
"""
import os
import re
import subprocess
import sys

import numpy as np


def points(n, dims=2, seed=1):
    """uniformPoints of bench_test.go."""
    i = np.arange(1, n * dims + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = np.uint64(seed) + i * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z ^= z >> np.uint64(31)
    return ((z >> np.uint64(11)).astype(np.float64) * 2.0**-53).reshape(n, dims)


def child(tool, method, n):
    """Runs one linkage in this process and prints the CPU seconds of the call."""
    import time
    X = points(n)
    t = time.process_time()
    if tool == "fastcluster":
        import fastcluster
        fastcluster.linkage(X, method)
    elif tool == "fastcluster-vector":
        import fastcluster
        fastcluster.linkage_vector(X, method)
    else:
        from scipy.cluster.hierarchy import linkage
        linkage(X, method)
    print(f"call {time.process_time() - t:.3f}")


def measure(cmd):
    """CPU seconds, peak MB and the child's call seconds (or None) of cmd under GNU time."""
    r = subprocess.run(["/usr/bin/time", "-f", "TIME %U %S %M"] + cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{cmd}: exit {r.returncode}\n{r.stdout}{r.stderr}")
    u, s, kb = re.search(r"TIME (\S+) (\S+) (\d+)", r.stderr).groups()
    call = re.search(r"call (\S+)", r.stdout)
    return float(u) + float(s), int(kb) / 1024, float(call.group(1)) if call else None


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    binary = sys.argv[1]
    sizes = [int(s) for s in (sys.argv[2] if len(sys.argv) > 2 else "5000,20000").split(",")]
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    me = [sys.executable, os.path.abspath(__file__), "--child"]
    print(f"{'workload':34} {'tool':20} {'CPU s':>8} {'call s':>8} {'peak MB':>8}")
    for n in sizes:
        vectors = [(m, m + "-vectors", "fastcluster-vector") for m in (["single", "ward"] if n > 50000 else ["single", "ward", "centroid", "median"])]
        runs = vectors if n > 50000 else [(m, m, "fastcluster") for m in ["single", "complete", "average", "ward"]] + vectors
        for method, ours, fc in runs:
            tools = [("hcbench", [binary, "-test.run", "^$", "-test.bench", f"^BenchmarkLinkage$/^n={n}$/^{ours}$", "-test.benchtime", "1x"]),
                     (fc, me + [fc, method, str(n)])]
            if n <= 50000 and fc == "fastcluster":
                tools.append(("scipy", me + ["scipy", method, str(n)]))
            best = {}
            for _ in range(repeats):
                for name, cmd in tools:
                    cpu, mb, call = measure(cmd)
                    b = best.setdefault(name, [cpu, mb, call])
                    b[0], b[1] = min(b[0], cpu), max(b[1], mb)
                    if call is not None:
                        b[2] = min(b[2], call)
            for name, _ in tools:
                cpu, mb, call = best[name]
                print(f"{ours + ', n = ' + format(n, ','):34} {name:20} {cpu:8.2f} {'' if call is None else format(call, '.2f'):>8} {mb:8.0f}", flush=True)


main()
