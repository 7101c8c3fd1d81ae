"""Independent figures for test/cli/survival-reference.test.ts: the session-aware horizon.

Reads JSON {"sessions": [[calls, ended], ...], "min_at_risk": m, "indices": [c, ...]} on stdin and
prints {"at_least": [...], "horizon": {c: h}, "low": {c: k}}: S(j) = P(L >= j) from scipy.stats.ecdf's
Kaplan-Meier estimate on right-censored data (not the worker's code), and the mean residual
h(c) = sum_{j > c} S(j) / S(c + 1), held past the last c whose c + 1 at least m sessions reached.
With "level" given, "low" is the level-quantile of the remaining calls R = L - c given L > c (held
alike): the conditional distribution P(R <= k) = 1 - S(c + k + 1) / S(c + 1) built as an array and
searched with numpy's searchsorted, not the worker's walk.
"""
import json
import sys

import numpy as np
from scipy.stats import CensoredData, ecdf

doc = json.load(sys.stdin)
calls = np.array([max(1, int(c)) for c, _ in doc["sessions"]], dtype=float)
ended = np.array([bool(e) for _, e in doc["sessions"]])
m = doc["min_at_risk"]
data = CensoredData(uncensored=calls[ended], right=calls[~ended])
sf = ecdf(data).sf  # P(L > t)
top = int(calls.max())
# P(L >= j) = P(L > j - 1)
at_least = [1.0] + [float(sf.evaluate(j - 1)) for j in range(1, top + 2)]
reached = lambda j: int((calls >= j).sum())
last = max((c for c in range(top + 1) if reached(c + 1) >= m and at_least[c + 1] > 0), default=-1)
level = doc.get("level")
horizon = {}
low = {}
for c in doc["indices"]:
    if last < 0:
        horizon[str(c)] = None
        low[str(c)] = None
        continue
    k = min(c, last)
    horizon[str(c)] = sum(at_least[j] for j in range(k + 1, top + 2)) / at_least[k + 1]
    if level is not None:
        # cdf[i] = P(R <= i + 1); the first i whose cdf reaches the level (a small tolerance for rounding).
        cdf = 1.0 - np.array([at_least[k + r + 1] if k + r + 1 <= top + 1 else 0.0 for r in range(1, top - k + 2)]) / at_least[k + 1]
        low[str(c)] = int(np.searchsorted(cdf, level - 1e-12, side="left")) + 1
print(json.dumps({"at_least": at_least, "horizon": horizon, "low": low}))
