#!/usr/bin/env python3
"""Greedy jet clustering by the Ginkgo likelihood, as an hcbench external algorithm.

hcbench starts this program once per worker and writes it one JSON line per jet on stdin (the
external protocol, version 2: docs/external.md). For each jet it computes the Ginkgo split
likelihood itself, from the leaves' 4-momenta and the request's model fields, merges the pair of
clusters whose split is most likely until one cluster is left, and answers one JSON line on
stdout: the merges (scipy's linkage convention: leaves 0..n-1, the k-th merge makes node n+k) or
the same tree in Newick, the tree's log-likelihood under its own computation, its compute time
and, as a work counter, the number of pairs it scored ((n-1)^2 for n leaves). hcbench scores the tree again under its own model, and warns
when the two disagree.

params (the config entry's `params`, passed verbatim):
  noise   Gumbel noise of this scale added to every pair's score (0: plain greedy). The noise is
          drawn from the request's seed, so the answers are the same on any number of workers.
  answer  merges (the default) or newick: a Newick tree whose leaves are labelled as the
          request's leaf_labels says, by index ("index") or by the request's names ("name").

Standard library only. Anything for a human goes to stderr; stdout carries answers only.
"""

import json
import math
import random
import sys
import time

LOG4PI = math.log(4 * math.pi)
NEG_INF = float("-inf")


def log(x):
    """log x, -inf for x <= 0 (where Go's math.Log gives -Inf or NaN)."""
    return math.log(x) if x > 0 else NEG_INF


def add(a, b):
    return [a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]]


def mass2(p):
    """The invariant mass squared E^2 - |p|^2 of a 4-momentum."""
    return p[0] * p[0] - p[1] * p[1] - p[2] * p[2] - p[3] * p[3]


def log_add_exp(a, b):
    if a < b:
        a, b = b, a
    if a == NEG_INF:
        return a
    return a + math.log1p(math.exp(b - a))


class Ginkgo:
    """The Ginkgo split likelihood of the request's model (ginkgo2020 or ginkgo2021).

    lambda rates every split but the root's, root_lambda the split of all leaves; a node whose
    invariant mass squared t is at most t_cut is a leaf.
    """

    def __init__(self, model):
        self.kind = model["kind"]
        if self.kind not in ("ginkgo2020", "ginkgo2021"):
            raise ValueError("model kind %r: this program knows ginkgo2020 and ginkgo2021" % self.kind)
        self.lam = [model["lambda"], model["root_lambda"]]
        self.t_cut = model["t_cut"]
        shrink = 1.0 if self.kind == "ginkgo2020" else 0.999
        self.log_norm = [log(-math.expm1(-shrink * lam)) for lam in self.lam]

    def leaf_t(self, p):
        """A leaf's t: 0 under ginkgo2020, its mass squared under ginkgo2021."""
        return 0.0 if self.kind == "ginkgo2020" else mass2(p)

    def split(self, p_left, p_right, t_left, t_right, root):
        """log psi: the log-likelihood that the parent of two clusters split into them."""
        r = 1 if root else 0
        t_parent = mass2(add(p_left, p_right))
        if self.kind == "ginkgo2021":
            return self._split2021(t_parent, mass2(p_left), mass2(p_right), r)
        return self._split2020(t_parent, t_left, t_right, r)

    def _split2020(self, t_p, t_l, t_r, r):
        if not t_p >= self.t_cut or math.isinf(t_p):
            return NEG_INF
        t_max, t_min = (t_r, t_l) if t_r > t_l else (t_l, t_r)
        t_p2 = (math.sqrt(t_p) - math.sqrt(max(t_max, 0.0))) ** 2
        return self._f2020(t_p, t_max, r) + self._f2020(t_p2, t_min, r) - LOG4PI

    def _f2020(self, bound, t, r):
        lam = self.lam[r]
        if t > 0:  # an internal child: the density of its t below the bound
            if not bound > 0:
                return NEG_INF
            return math.log(lam) - math.log(bound) - lam * t / bound - self.log_norm[r]
        if bound == 0:  # a leaf with no room above it: certain
            return -self.log_norm[r]
        return log(-math.expm1(-lam * self.t_cut / bound)) - self.log_norm[r]

    def _split2021(self, t_p, t_l, t_r, r):
        if not t_p > self.t_cut or math.isinf(t_p) or not t_l >= 0 or not t_r >= 0:
            return NEG_INF
        if t_l >= 0.999 * t_p or t_r >= 0.999 * t_p:
            return NEG_INF
        s_p, s_l, s_r = math.sqrt(t_p), math.sqrt(t_l), math.sqrt(t_r)
        if s_l + s_r > s_p:
            return NEG_INF
        a = self._g2021(t_p, t_l, r) + self._g2021((s_p - s_l) ** 2, t_r, r)
        b = self._g2021(t_p, t_r, r) + self._g2021((s_p - s_r) ** 2, t_l, r)
        return log_add_exp(a, b) + math.log(0.5) - LOG4PI

    def _g2021(self, bound, t, r):
        lam = self.lam[r]
        if t > self.t_cut:
            if not bound > 0:
                return NEG_INF
            return math.log(lam) - math.log(bound) - lam * t / bound - self.log_norm[r]
        if not bound > 0:
            return log(-math.expm1(-lam)) - self.log_norm[r]
        return log(-math.expm1(-lam * min(bound, self.t_cut) / bound)) - self.log_norm[r]


def cluster(request):
    """Greedy agglomeration of one jet: the answer's merges, log-likelihood, extra and counters."""
    if not isinstance(request.get("model"), dict) or "leaves" not in request.get("data", {}):
        raise ValueError("this program clusters jets (data.leaves with a Ginkgo model)")
    model = Ginkgo(request["model"])
    leaves = request["data"]["leaves"]
    n = request["n"]
    noise = float(request.get("params", {}).get("noise", 0))
    rng = random.Random(int(request["seed"]))  # the task's seed: the same draws on every run

    # The live clusters: node id -> (4-momentum, t, number of leaves).
    live = {i: (leaf, model.leaf_t(leaf), 1) for i, leaf in enumerate(leaves)}
    scores = {}  # (a, b) with a < b -> log psi of merging clusters a and b
    merges, total, scored = [], 0.0, 0
    for k in range(n - 1):
        root = len(live) == 2  # the last merge is the root split, scored with root_lambda
        best, best_pair, best_score = None, None, None
        ids = sorted(live)
        for i, a in enumerate(ids):
            for b in ids[i + 1:]:
                if (a, b) not in scores or root:
                    pa, ta, _ = live[a]
                    pb, tb, _ = live[b]
                    scores[(a, b)] = model.split(pa, pb, ta, tb, root)
                    scored += 1
                s = scores[(a, b)]
                key = s + noise * -math.log(-math.log(rng.random() or 1e-300)) if noise else s
                if best is None or key > best:
                    best, best_pair, best_score = key, (a, b), s
        a, b = best_pair
        (pa, _, na), (pb, _, nb) = live.pop(a), live.pop(b)
        p = add(pa, pb)
        live[n + k] = (p, mass2(p), na + nb)
        merges.append([a, b])
        total += best_score
    return merges, total, {"noise": noise}, {"pairs_scored": scored}


def newick(merges, n, labels):
    """The tree of merges in Newick, leaf i labelled labels[i] (quoted where Newick needs it)."""
    def quote(label):
        if label and not any(c in label for c in "()[]':;,_ \t\n\r"):
            return label
        return "'" + label.replace("'", "''") + "'"

    nodes = [quote(label) for label in labels]
    for a, b in merges:
        nodes.append("(%s,%s)" % (nodes[a], nodes[b]))
    return nodes[-1] + ";"


def leaf_labels(request):
    """The labels of the leaves that the request's leaf_labels asks for."""
    if request["leaf_labels"] == "name":
        return request["names"]
    return [str(i) for i in range(request["n"])]


def main():
    while True:
        line = sys.stdin.readline()
        if not line:
            return  # stdin closed: hcbench is done
        request = json.loads(line)
        answer = {"task": request["task"]}
        start = time.process_time()
        try:
            if request.get("protocol") != 2:
                raise ValueError("protocol %r: this program speaks protocol 2" % request.get("protocol"))
            merges, log_likelihood, extra, counters = cluster(request)
            if request.get("params", {}).get("answer", "merges") == "newick":
                answer["newick"] = newick(merges, request["n"], leaf_labels(request))
            else:
                answer["merges"] = merges
            # JSON has no infinities: a tree the model forbids has log-likelihood null.
            answer["log_likelihood"] = None if math.isinf(log_likelihood) else log_likelihood
            answer["seconds"] = time.process_time() - start
            answer["extra"] = extra
            answer["counters"] = counters
        except Exception as e:  # answer the error: the task fails, the program goes on
            print("item %s: %r" % (request.get("item"), e), file=sys.stderr)
            answer = {"task": request["task"], "error": str(e)}
        sys.stdout.write(json.dumps(answer, allow_nan=False) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
