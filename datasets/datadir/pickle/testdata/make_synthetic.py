# Writes a tiny synthetic pickle shaped like ClusterTrellis data/truth_N.pkl (made-up numbers)
# and the JSON Lines that hcbench must convert it to.
import json, pickle, sys
import numpy as np
import torch

def jet(k, scale):
    params = torch.tensor([1.25 * k, 0.1 * k])   # float32 storage of 2; Lambda/LambdaRoot are views
    leaves = np.array([[1.0 * scale, 0.5, -0.25, 1e-05], [3.0, 1e16 * k, 2.5e-7, -1.0 / 3.0], [7.0, 0.3, 0.2, 0.1]])
    content = np.vstack([leaves.sum(0), leaves[:1] + leaves[1:2], leaves])
    tree = np.array([[1, 4], [2, 3], [-1, -1], [-1, -1], [-1, -1]], dtype=np.int64)
    deltas = np.array([float(torch.tensor(123.456 * k)), float(torch.tensor(0.7)), 0.0, 0.0, 0.0])
    logLH = np.array([float(torch.tensor(-1.1 * k)), float(torch.tensor(-2.2)), 0.0, 0.0, 0.0])
    draws = np.empty(5, dtype=object)
    draws[1] = torch.tensor(0.3)
    draws[2] = torch.tensor(0.6 * k)
    return {
        "root_id": 0, "tree": tree, "content": content,
        "LambdaRoot": params[0], "Lambda": params[1], "Delta_0": torch.tensor(400.0 * k),
        "pt_cut": 4.0, "algorithm": "truth", "deltas": deltas, "draws": draws, "leaves": leaves,
        "M_Hard": 20.0, "logLH": logLH,
        "dij": [[-1.5, np.float64(0.25), np.float64(2.0)]], "ConstPhi": [np.float64(1.0625)],
        "PhiDelta": [np.float64(-2.5)], "PhiDeltaRel": [np.float64(3.0)], "sumlogLH": np.float64(-3.3),
    }

jets = np.empty(2, dtype=object)
jets[0], jets[1] = jet(1, 1.0), jet(2, 123456.789)
stem = sys.argv[1]
with open(stem + ".pkl", "wb") as f:
    pickle.dump(jets, f, protocol=2)
keys = ["leaves", "Lambda", "LambdaRoot", "pt_cut", "Delta_0", "root_id", "tree", "content", "deltas", "logLH"]
def plain(v):
    if isinstance(v, torch.Tensor):
        return float(v)
    if isinstance(v, np.ndarray):
        return v.tolist()
    return v
with open(stem + ".jsonl", "w") as f:
    for i, d in enumerate(jets):
        rec = {"id": "%s-%d" % (stem.rsplit("/", 1)[-1], i)}
        rec.update((k, plain(d[k])) for k in keys)
        f.write(json.dumps(rec) + "\n")
