"""An exact reference of the cache-aware gate and the clearing plan, under both recall placements.

Written from docs/design/economics.md §3–§4 and docs/design/plan.md §2, not from src/: every price,
probability and term is a python Fraction, so a figure here has no rounding at all. It prints
test/fixtures/economics-reference.json, which test/routes/gate/economics-reference.test.ts sends
over HTTP (POST /v1/gate/batch and POST /v1/plan) and compares figure by figure:

    python3 scripts/reference/economics.py > test/fixtures/economics-reference.json

- "append" (the default): the recall hop is one more call whose history, stub and suffix included,
  is a prefix the last call cached: P and A are read at m(T); only the recalled slice is written.
- "in_place": the original is restored where the stub stood, so the call reads the cache only up
  to the stub: P is read at m(T), the suffix A is written at T.write.

Cases are drawn from a seeded generator; a case whose exact net (or plan margin) lies within 1e-9 of
a decision boundary is redrawn, so float rounding in the worker cannot flip a compared answer.
"""
import itertools
import json
import random
import sys
from fractions import Fraction as F

MILLION = 10**6
ECONOMICS_CASES = 364
PLAN_CASES = 241
MAX_HORIZON_BREAK_EVEN = 10_000


# The worked examples are priced at the decimal figures the docs write (0.9 is 9/10); the cases at
# the exact value of the double the worker receives for each JSON number.
DECIMAL = False


def exact(x):
    if isinstance(x, F):
        return x
    if isinstance(x, int):
        return F(x)
    return F(repr(x)) if DECIMAL else F(float(x))


def rates(row, input_tokens, ttl):
    floor = row.get("min_cache_prefix_tokens")
    if floor is not None and input_tokens < floor:
        # docs/design/economics.md §11: a prefix below the minimum is never cached; every token pays input.
        r = rates({k: v for k, v in row.items() if k != "min_cache_prefix_tokens"}, input_tokens, ttl)
        return {**r, "read": r["in"], "write": r["in"]}
    tier = row.get("long_context")
    if tier is None or not (input_tokens > tier["threshold_tokens"]):
        tier = None
    t = tier or {}
    inp = t.get("input", row.get("input", 0))
    write5 = t.get("cache_write", row.get("cache_write", inp))
    write = t.get("cache_write_1h", row.get("cache_write_1h", write5)) if ttl == "1h" else write5
    read = t.get("cache_read", row.get("cache_read", inp))
    out = t.get("output", row.get("output", 0))
    return {k: exact(v) / MILLION for k, v in (("in", inp), ("out", out), ("read", read), ("write", write))}


def later(r, q):
    return q * r["read"] + (1 - q) * r["write"]


def carry(r, q, h):
    return 0 if h == 0 else r["write"] + (h - 1) * later(r, q)


def hop_suffix_rate(t, q, placement):
    return t["write"] if placement == "in_place" else later(t, q)


def gate_net(row, c, h=None, placement="append"):
    """The cache-aware gate's net (docs/design/economics.md §3.3, §4) for case c, exactly."""
    h = c["horizon"] if h is None else h
    o, s, p, q = exact(c["output_tokens"]), exact(c["stub_tokens"]), exact(c["recall_probability"]), exact(c["cache_hit_rate"])
    ctx = exact(c["context_tokens"])
    retro = c.get("offload_at") == "retroactive"
    a = exact(c.get("suffix_tokens", 0)) if retro else F(0)
    ttl = c.get("cache_ttl", "5m")
    k, t = rates(row, ctx + o + a, ttl), rates(row, ctx + s + a, ttl)
    mk, mt = later(k, q), later(t, q)
    reprefill = o * h * mk if retro else o * carry(k, q, h)
    premium = ctx * h * (mk - mt)
    suffix = a * carry(t, q, h) - a * h * mk
    stub = s * carry(t, q, h)
    recall = p * (
        exact(c["recall_input_tokens"]) * t["write"] + exact(c["recall_output_tokens"]) * t["out"] + ctx * mt
        + a * hop_suffix_rate(t, q, placement)
    )
    return reprefill + premium - (stub + recall + suffix)


def break_even_horizon(row, c, placement):
    # net is affine in h for h >= 1 (the tiers do not depend on h): solve it exactly.
    n1 = gate_net(row, c, 1, placement)
    slope = gate_net(row, c, 2, placement) - n1
    if n1 > 0:
        return 1
    if slope <= 0:
        return None
    root = (-n1 / slope).__floor__() + 2
    return root if root <= MAX_HORIZON_BREAK_EVEN else None


def plan_net(row, plan, members, placement):
    """docs/design/plan.md §2: one plan's net, exactly; `members` index the candidates."""
    segs, h, q, ttl = plan["segments"], plan["horizon"], exact(plan["cache_hit_rate"]), plan.get("cache_ttl", "5m")
    total = sum(exact(s["tokens"]) for s in segs)
    cands, before = [], F(0)
    for s in segs:
        if "id" in s:
            cands.append((before, exact(s["tokens"]), exact(s.get("stub_tokens", plan["stub_tokens"])),
                          exact(s.get("recall_probability", plan["recall_probability"]))))
        before += exact(s["tokens"])
    chosen = [cands[i] for i in members]
    removed = sum(c[1] for c in chosen)
    stubs = sum(c[2] for c in chosen)
    after = total - removed + stubs
    k, t = rates(row, total, ttl), rates(row, after, ttl)
    mk, mt = later(k, q), later(t, q)
    ri, ro = exact(plan["recall_input_tokens"]), exact(plan["recall_output_tokens"])
    recall = sum(p * (ri * t["write"] + ro * t["out"] + b * mt + (total - b - tok) * hop_suffix_rate(t, q, placement))
                 for b, tok, _, p in chosen)
    first = chosen[0][0]
    suffix = total - first - removed
    return (removed * h * mk + first * h * (mk - mt)
            - (stubs * carry(t, q, h) + recall + suffix * carry(t, q, h) - suffix * h * mk))


def best_plan(row, plan, placement):
    n = sum(1 for s in plan["segments"] if "id" in s)
    nets = sorted(((plan_net(row, plan, list(m), placement), m)
                   for r in range(1, n + 1) for m in itertools.combinations(range(n), r)), key=lambda x: x[0], reverse=True)
    best, members = nets[0]
    runner_up = nets[1][0] if len(nets) > 1 else F(0)
    if best <= 0:
        return F(0), (), min(abs(best), 1)
    return best, members, min(best - max(runner_up, 0), best)


def random_row(rng, name):
    inp = rng.choice([0.25, 0.4, 1.1, 1.25, 2, 3, 5, 10, 15])
    row = {"input": inp, "output": inp * rng.choice([4, 5, 8]), "cache_read": round(inp * rng.choice([0.1, 0.25, 0.5]), 6)}
    if rng.random() < 0.7:
        row["cache_write"] = inp * 1.25
        if rng.random() < 0.7:
            row["cache_write_1h"] = inp * 2
    if rng.random() < 0.3:
        row["long_context"] = {"threshold_tokens": rng.choice([128_000, 200_000]), "input": inp * 2, "output": inp * 6,
                               "cache_read": round(inp * 0.2, 6)}
        if "cache_write" in row:
            row["long_context"]["cache_write"] = inp * 2.5
    row["provider"] = "reference"
    return name, row


def near_zero(x, scale):
    return abs(x) <= F(1, 10**9) * max(scale, F(1, 10**6))


def economics_cases(rng):
    cases = []
    while len(cases) < ECONOMICS_CASES:
        name, row = random_row(rng, f"ref-econ-{len(cases)}")
        retro = rng.random() < 0.6
        c = {
            "output_tokens": rng.choice([rng.randint(200, 9_000), rng.randint(9_000, 120_000)]),
            "horizon": rng.randint(0, 30),
            "recall_probability": rng.randint(0, 100) / 100,
            "cache_hit_rate": rng.randint(0, 100) / 100,
            "context_tokens": rng.choice([0, rng.randint(0, 60_000), rng.randint(60_000, 250_000)]),
            "stub_tokens": rng.choice([50, 200, 500]),
            "recall_input_tokens": rng.choice([0, 2_000, 8_000]),
            "recall_output_tokens": rng.choice([0, 500]),
            "cache_ttl": rng.choice(["5m", "1h"]),
        }
        if retro:
            c["offload_at"] = "retroactive"
            c["suffix_tokens"] = rng.choice([0, rng.randint(1, 20_000), rng.randint(20_000, 150_000)])
        expected = {}
        ok = True
        for placement in ("append", "in_place"):
            net = gate_net(row, c, None, placement)
            ok = ok and not near_zero(net, F(1))
            be = break_even_horizon(row, c, placement)
            if be is not None:
                ok = ok and not near_zero(gate_net(row, c, be, placement), F(1))
                ok = ok and (be == 1 or not near_zero(gate_net(row, c, be - 1, placement), F(1)))
            expected[placement] = {"net_saving_usd": float(net), "fire": net > 0, "break_even_horizon": be}
        if ok:
            cases.append({"model_name": name, "row": row, "inputs": c, "expected": expected})
    return cases


def plan_cases(rng):
    cases = []
    while len(cases) < PLAN_CASES:
        name, row = random_row(rng, f"ref-plan-{len(cases)}")
        segments, ids = [], 0
        for _ in range(rng.randint(2, 10)):
            if ids < 6 and rng.random() < 0.5:
                seg = {"id": f"c{ids}", "tokens": rng.choice([rng.randint(500, 9_000), rng.randint(9_000, 60_000)])}
                if rng.random() < 0.5:
                    seg["recall_probability"] = rng.randint(0, 100) / 100
                ids += 1
                segments.append(seg)
            else:
                segments.append({"tokens": rng.randint(0, 40_000)})
        if ids == 0:
            continue
        plan = {
            "segments": segments,
            "horizon": rng.randint(1, 25),
            "recall_probability": rng.randint(0, 100) / 100,
            "cache_hit_rate": rng.randint(0, 100) / 100,
            "cache_ttl": rng.choice(["5m", "1h"]),
            "stub_tokens": rng.choice([50, 200]),
            "recall_input_tokens": rng.choice([0, 2_000]),
            "recall_output_tokens": rng.choice([0, 500]),
        }
        expected, ok = {}, True
        for placement in ("append", "in_place"):
            net, members, margin = best_plan(row, plan, placement)
            ok = ok and not near_zero(margin, F(1))
            expected[placement] = {"net_saving_usd": float(net), "stub": [f"c{i}" for i in members]}
        if ok:
            cases.append({"model_name": name, "row": row, "inputs": plan, "expected": expected})
    return cases


def worked_examples():
    """R1, P1 and D1 of docs/economics.md under each placement, as exact fractions."""
    opus = {"input": 5, "output": 25, "cache_read": 0.5, "cache_write": 6.25, "cache_write_1h": 10}
    base = {"stub_tokens": 200, "recall_input_tokens": 2_000, "recall_output_tokens": 500, "cache_hit_rate": 0.9}
    r1 = {**base, "output_tokens": 20_000, "horizon": 4, "recall_probability": 0.3, "context_tokens": 60_000,
          "offload_at": "retroactive", "suffix_tokens": 30_000}
    d1 = {**base, "output_tokens": 4_000, "horizon": 20, "recall_probability": 0.25, "context_tokens": 100_000}
    p1 = {**base, "horizon": 4, "recall_probability": 0.25, "segments": [
        {"tokens": 8_000}, {"id": "c1", "tokens": 42_000, "recall_probability": 0.2}, {"tokens": 1_500},
        {"id": "c2", "tokens": 15_000, "recall_probability": 0.25}, {"tokens": 3_000},
        {"id": "c3", "tokens": 30_000, "recall_probability": 0.1}, {"tokens": 2_000}]}
    global DECIMAL
    DECIMAL = True
    out = {}
    for placement in ("append", "in_place"):
        out[placement] = {
            "R1": str(gate_net(opus, r1, None, placement)),
            "D1": str(gate_net(opus, d1, None, placement)),
            "P1": str(best_plan(opus, p1, placement)[0]),
        }
        out[placement] = {k: [v, repr(float(F(v)))] for k, v in out[placement].items()}
    return out


def row_field_examples():
    """O1, M1 and T1 of docs/economics.md: the 30-minute cache, the minimum cacheable prefix and the
    tokenizer ratio, each through the gate's net (§5.2, §11, §12), as exact fractions. Printed as
    test/fixtures/row-fields-reference.json, which test/routes/gate/row-fields-reference.test.ts sends."""
    global DECIMAL
    DECIMAL = True
    base = {"stub_tokens": 200, "recall_input_tokens": 2_000, "recall_output_tokens": 500, "cache_hit_rate": 0.9,
            "large_offload_threshold_tokens": 0}
    terra = {"input": 2, "output": 12, "cache_read": 0.2, "cache_write": 2.5, "provider": "openai", "cache_ttls": ["30m"]}
    opus = {"input": 5, "output": 25, "cache_read": 0.5, "cache_write": 6.25, "cache_write_1h": 10, "provider": "anthropic"}
    sonnet = {"input": 3, "output": 15, "cache_read": 0.3, "cache_write": 3.75, "cache_write_1h": 6,
              "provider": "anthropic", "chars_per_token": 2.88}
    o1 = {**base, "output_tokens": 20_000, "horizon": 4, "recall_probability": 0.3, "context_tokens": 60_000}
    m1 = {**base, "output_tokens": 3_000, "horizon": 2, "recall_probability": 0.9, "context_tokens": 1_000}
    t1 = {**base, "output_chars": 36_000, "horizon": 1, "recall_probability": 0.6, "context_tokens": 60_000,
          "recall_input_tokens": 4_000}
    cases = []

    def case(name, model, row, inputs, tokens=None):
        c = {**inputs, "output_tokens": tokens} if tokens is not None else inputs
        net = gate_net(row, c)
        cases.append({"name": name, "model_name": model, "row": row, "inputs": inputs,
                      "expected": {"net_saving_usd": repr(float(net)), "exact": str(net), "fire": net > 0}})

    case("O1", "gpt-5.6-terra", terra, o1)
    case("M1 without the minimum", "opus-no-floor", opus, m1)
    case("M1", "opus-floor", {**opus, "min_cache_prefix_tokens": 4_096}, m1)
    case("T1 at 4 characters a token", "sonnet-four", {k: v for k, v in sonnet.items() if k != "chars_per_token"}, t1,
         F(36_000) / 4)
    case("T1", "sonnet-measured", sonnet, t1, F(36_000) / exact(sonnet["chars_per_token"]))
    return cases


if __name__ == "__main__":
    if sys.argv[1:] == ["examples"]:
        print(json.dumps(worked_examples(), indent=2))
    elif sys.argv[1:] == ["rows"]:
        print(json.dumps(row_field_examples(), indent=2))
    else:
        rng = random.Random(44)
        print(json.dumps({"economics": economics_cases(rng), "plans": plan_cases(rng)}, separators=(",", ":")))
