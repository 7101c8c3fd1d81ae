"""Independent figures for test/learning/learning-ranges-large.test.ts.

The quantiles of Beta(m·c, (1−m)·c), the credible ranges of a learned p or
q, computed with scipy (not with the worker's code) over means from 1e-9 to
1 − 1e-6 and concentrations from 2 to 1e12: far past the import cap
(docs/learning.md), where the worker's continued fraction gives out. Each
quantile is the root of scipy's beta.cdf (brentq to 1e-15 relative): in
scipy 1.17, beta.ppf itself answers 1.9e-6 for every level of
Beta(1000, 999999000), whose cdf there is 1.0.
Run `python3 scripts/reference/beta_quantiles.py > test/fixtures/beta-quantiles.json`, then
`npx biome format --write test/fixtures/beta-quantiles.json`.
"""
import json
import math

from scipy import optimize, stats

MEANS = [1e-9, 1e-6, 1e-3, 0.02, 0.1, 0.3, 0.5, 0.7543290043290043, 0.9, 0.999, 1 - 1e-6]
CONCENTRATIONS = [2, 22, 1e3, 3e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e12]
LEVELS = [0.005, 0.05, 0.5, 0.95, 0.995]


def quantile(level, a, b):
    dist = stats.beta(a, b)
    sd = dist.std()
    lo, hi = max(0.0, dist.mean() - 60 * sd), min(1.0, dist.mean() + 60 * sd)
    if dist.cdf(lo) > level:
        lo = 0.0
    if dist.cdf(hi) < level:
        hi = 1.0
    return optimize.brentq(lambda x: dist.cdf(x) - level, lo, hi, xtol=sd * 1e-10, rtol=1e-15, maxiter=500)


rows = []
for m in MEANS:
    for c in CONCENTRATIONS:
        a, b = m * c, (1 - m) * c
        for level in LEVELS:
            q = quantile(level, a, b)
            assert math.isfinite(q) and 0 <= q <= 1
            rows.append({"level": level, "a": a, "b": b, "q": q})
print(json.dumps({"source": "roots of scipy.stats.beta.cdf", "rows": rows}, indent=0))
