"""Independent figures for test/learning/learning-chain.test.ts: the pooling chain.

The chain of docs/design/learning.md §2 (config → replay tool → replay band → tenant → tool →
tool × model, and for p: replay → tool → tool × model → tool × band, the tenant skipped for a named
tool), with §2.4's rule that each outcome counts once: a level whose observations of a field are
exactly those of the level above it that holds them adds nothing for that field. Computed with exact
fractions, not with the worker's code: run `python3 scripts/reference/pool.py` and compare with the
numbers the test holds.
"""
from fractions import Fraction as F

W = 10
ROOT = {"p": F(1, 4), "h": F(4), "q": F(9, 10)}


def n_of(field, s):
    if s is None:
        return 0
    if field == "p":
        return s["p_n"]
    if field == "h":
        return s["h_n"]
    return s["q_n"] if s["q_turns"] > 0 else 0


def mean_of(field, s):
    if field == "p":
        return F(s["p_r"], s["p_n"])
    if field == "h":
        return F(s["h_sum"], s["h_n"])
    return F(s["q_cached"], s["q_turns"])


def chain(field, levels):
    """levels: [(sums, superset sums or None)], root first; returns (value, n)."""
    m, n_used = ROOT[field], 0
    for sums, within in levels:
        n = n_of(field, sums)
        if n == 0 or (within is not None and n_of(field, within) == n):
            continue
        m = (W * m + n * mean_of(field, sums)) / (W + n)
        n_used = n
    return m, n_used


def sums(p_n=0, p_r=0, h_n=0, h_sum=0, q_n=0, q_cached=0, q_turns=0):
    return dict(p_n=p_n, p_r=p_r, h_n=h_n, h_sum=h_sum, q_n=q_n, q_cached=q_cached, q_turns=q_turns)


def decision(tenant, tool, model, band, replay=None, replay_band=None):
    p = chain("p", [(replay, None), (replay_band, replay), (tool, None), (model, tool), (band, tool)])
    h = chain("h", [(replay, None), (replay_band, replay), (tenant, None), (tool, tenant), (model, tool)])
    q = chain("q", [(replay, None), (replay_band, replay), (tenant, None), (tool, tenant), (model, tool)])
    return p, h, q


def show(name, result):
    (p, pn), (h, hn), (q, qn) = result
    print(f"{name}: p {float(p)!r} (n {pn}), h {float(h)!r} (n {hn}), q {float(q)!r} (n {qn})")


# A: the example: 32 recalls in 40, one tool, one model, one band; 40 outcomes of mean h 5,
# 20 with cached_turns (60 of 80 turns). Every level holds the same outcomes: (2.5 + 32) ÷ 50 = 0.69.
a = sums(p_n=40, p_r=32, h_n=40, h_sum=200, q_n=20, q_cached=60, q_turns=80)
show("A", decision(a, a, a, sums(p_n=40, p_r=32)))

# B: one tool, two models (opus 30 fired of which 24 recalled; sonnet 10, 2), bands ge10k 25 (22) and lt2k
# 15 (4); the tenant holds a second tool's 50 outcomes of mean h 2 besides.
tool_b = sums(p_n=40, p_r=26, h_n=44, h_sum=264, q_n=10, q_cached=20, q_turns=40)
opus = sums(p_n=30, p_r=24, h_n=33, h_sum=231, q_n=10, q_cached=20, q_turns=40)
tenant_b = sums(p_n=90, p_r=30, h_n=94, h_sum=364, q_n=10, q_cached=20, q_turns=40)
show("B opus ge10k", decision(tenant_b, tool_b, opus, sums(p_n=25, p_r=22)))
show("B opus lt2k", decision(tenant_b, tool_b, opus, sums(p_n=15, p_r=4)))
show("B opus 2k-10k", decision(tenant_b, tool_b, opus, None))

# C: one model holding the whole tool, its outcomes in two bands (ge10k 12 of 20, lt2k 1 of 10), and an
# imported replay level (60 fired, 30 recalled, 60 outcomes of mean h 3) whose ge10k band holds all of it.
tool_c = sums(p_n=30, p_r=13, h_n=30, h_sum=150)
replay = sums(p_n=60, p_r=30, h_n=60, h_sum=180)
show("C ge10k", decision(tool_c, tool_c, tool_c, sums(p_n=20, p_r=12), replay, replay))
show("C lt2k", decision(tool_c, tool_c, tool_c, sums(p_n=10, p_r=1), replay, replay))
