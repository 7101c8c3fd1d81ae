"""Independent figures for the breaker's opening test (src/learning/refresh/opening.ts openingSequence; docs/design/learning.md §4.7).

psi_i = (T_i - pi) * (y_i - mean of the earlier y) / (pi (1 - pi)); the held-out arm's sum of psi^2 floored by
n_held * (pi^2 * S_treated + (1 - pi)^2 * S_held) / (t (1 - pi)^2), the pooled squared deviation read on the held
arm's scale; sd from both arms' sums; the interval psi_bar +- sd * radius(t, 2 alpha) with the asymptotic
confidence sequence's radius (Waudby-Smith et al.), written here from its formula with numpy, not the worker's code.
Run `python3 scripts/reference/opening.py`; test/learning/learning-opening.test.ts holds the numbers it prints.
"""
import numpy as np

HELD = [int(c) for c in "000100100001100000001101100000011101010110000010000010010000"]
COST = [
    0.712, 1.715, 0.881, 1.136, 0.427, 0.784, 0.822, 3.439, 4.4, 0.373, 0.632, 1.91, 0.136, 0.881, 1.27, 4.921, 2.79,
    1.009, 0.968, 1.09, 4.588, 0.652, 1.033, 1.423, 0.886, 1.149, 0.46, 1.384, 0.898, 4.493, 2.69, 0.976, 1.951, 0.712,
    4.009, 0.995, 2.509, 0.275, 1.98, 0.185, 0.131, 1.033, 0.569, 1.65, 13.213, 0.609, 0.536, 1.719, 2.292, 1.174, 1.139,
    2.826, 1.682, 0.498, 1.293, 1.036, 0.488, 1.815, 0.594, 3.701,
]


def radius(t, alpha, t_opt=500.0):
    l = -2 * np.log(alpha)
    r = (l + np.log(l + 1)) / t_opt
    return np.sqrt(2 * (t * r + 1) / (t * t * r) * np.log(np.sqrt(t * r + 1) / alpha))


def opening(cost, held, holdout, alpha=0.05):
    pi = 1 - holdout
    y = np.asarray(cost, dtype=float)
    treated = 1 - np.asarray(held)
    earlier = np.concatenate([[0.0], np.cumsum(y)[:-1] / np.arange(1, len(y))])
    psi = (treated - pi) * (y - earlier) / (pi * (1 - pi))
    t = len(y)
    s_t = float(np.sum(psi[treated == 1] ** 2))
    s_h = float(np.sum(psi[treated == 0] ** 2))
    n_h = int(np.sum(treated == 0))
    guarded = max(s_h, n_h * (pi**2 * s_t + (1 - pi) ** 2 * s_h) / (t * (1 - pi) ** 2))
    est = float(np.mean(psi))
    sd = float(np.sqrt(max(0.0, (s_t + guarded - t * est**2) / (t - 1))))
    half = sd * radius(t, 2 * alpha)
    return est, sd, est - half, est + half


for holdout in (0.3, 0.5):
    print(holdout, [repr(float(v)) for v in opening(COST, HELD, holdout)])
