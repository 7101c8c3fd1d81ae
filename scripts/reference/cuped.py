"""Independent figures for the CUPED adjustment (src/learning/refresh/opening.ts cupedRows; docs/design/learning.md §4.1).

Each bill minus beta_{i-1} * (x_i - mean_{i-1}(x)), beta the least-squares slope of cost on x over the
earlier sessions with a covariate (numpy's polyfit here, not the worker's running sums); a session
without one (None) is left as it is. Run `python3 scripts/reference/cuped.py`; the test
test/learning/learning-opening.test.ts holds the numbers it prints.
"""
import numpy as np

cost = [1.2, 0.8, 2.5, 1.9, 0.4, 3.1, 1.1, 2.2, 0.9, 1.7, 2.8, 0.6]
x = [150, 90, None, 200, 40, 310, 120, None, 100, 180, 290, 60]

out = []
seen_x, seen_y = [], []
for c, xi in zip(cost, x):
    if xi is None:
        out.append(c)
        continue
    if len(seen_x) == 0:
        adj = c
    else:
        beta = np.polyfit(seen_x, seen_y, 1)[0] if len(seen_x) > 1 and np.var(seen_x) > 0 else 0.0
        adj = c - beta * (xi - np.mean(seen_x))
    out.append(float(adj))
    seen_x.append(xi)
    seen_y.append(c)
print([repr(v) for v in out])
