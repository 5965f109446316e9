"""Writes the reference trees of the linkage tests: scipy.cluster.hierarchy.linkage on small
inputs, with and without exact ties, stored with the inputs in scipy_<case>.json.

    /usr/bin/python3 scipy_reference.py      # in this directory; Debian 12's python3-scipy 1.10.1

The inputs come from numpy's PCG64 generator with the seeds below. Each JSON file holds the case's
parameters, the input (points, or a condensed distance array for the non-Euclidean case), and for
each method the merges (Z[:, :2]) and heights (Z[:, 2]) of scipy's linkage matrix Z.
"""
import json

import numpy as np
import scipy
from scipy.cluster.hierarchy import linkage

EUCLIDEAN = ["single", "complete", "average", "ward", "centroid", "median"]

# name: (description, n, dims, seed, generator)
CASES = {
    # Integer points on a 6×6 grid: 36 places for 300 points, so duplicates and equal distances
    # everywhere.
    "grid2d": ("integer points in [0,5]², many duplicates and ties", 300, 2, 1, lambda g, n, d: g.integers(0, 6, (n, d)).astype(float)),
    "grid3d": ("integer points in [0,3]³, many duplicates and ties", 200, 3, 2, lambda g, n, d: g.integers(0, 4, (n, d)).astype(float)),
    "line": ("integers in [0,9] on a line, ten places for 100 points", 100, 1, 3, lambda g, n, d: g.integers(0, 10, (n, d)).astype(float)),
    "gauss2d": ("standard normal points in the plane, no ties", 200, 2, 4, lambda g, n, d: g.standard_normal((n, d))),
    "gauss5d": ("standard normal points in 5 dimensions, no ties", 120, 5, 5, lambda g, n, d: g.standard_normal((n, d))),
}


def tree(Z):
    assert np.all(np.isfinite(Z)), "scipy returned a non-finite height"
    return {"merges": Z[:, :2].astype(int).tolist(), "heights": Z[:, 2].tolist()}


def write(name, doc):
    doc = {"source": f"scipy {scipy.__version__} scipy.cluster.hierarchy.linkage, numpy {np.__version__}",
           "script": "testdata/scipy_reference.py", "case": name, **doc}
    with open(f"scipy_{name}.json", "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")


for name, (desc, n, dims, seed, gen) in CASES.items():
    X = gen(np.random.Generator(np.random.PCG64(seed)), n, dims)
    write(name, {"description": desc, "generator": f"numpy PCG64 seed {seed}", "call": "linkage(points, method)",
                 "points": X.tolist(), "linkage": {m: tree(linkage(X, m)) for m in EUCLIDEAN}})

# Not Euclidean: integer distances 1..6, drawn independently for each pair (Ward needs vectors).
n, seed = 120, 6
y = np.random.Generator(np.random.PCG64(seed)).integers(1, 7, n * (n - 1) // 2).astype(float)
write("intdist", {"description": "independent integer distances in [1,6], not Euclidean; many ties",
                  "generator": f"numpy PCG64 seed {seed}", "call": "linkage(distances, method)", "n": n,
                  "distances": y.tolist(), "linkage": {m: tree(linkage(y, m)) for m in ["single", "complete", "average"]}})
