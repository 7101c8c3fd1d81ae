"""Independent figures for test/learning/learning-trust.test.ts (docs/design/learning.md §3.5).

The reporting flags' statistics computed with scipy, not with the worker's code:
run `python3 scripts/reference/trust.py` and compare with the numbers the test holds.
"""
import math

from scipy import stats


def upper_bound(k, n, level):
    # Exact (Clopper-Pearson) one-sided upper bound of a binomial proportion.
    return 1.0 if k >= n else stats.beta.ppf(level, k + 1, n - k)


def two_proportion_z(k1, n1, k2, n2):
    pooled = (k1 + k2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    return (k1 / n1 - k2 / n2) / se


def welch_z(a, b):
    ta = stats.ttest_ind(a, b, equal_var=False)
    # The statistic is Welch's t; the worker compares it with the normal's quantile (z).
    return ta.statistic


print("upper_bound(45, 100, 0.999) =", repr(upper_bound(45, 100, 0.999)))
print("upper_bound(171, 200, 0.999) =", repr(upper_bound(171, 200, 0.999)))
print("upper_bound(172, 200, 0.999) =", repr(upper_bound(172, 200, 0.999)))
print("two_proportion_z(90, 100, 70, 100) =", repr(two_proportion_z(90, 100, 70, 100)))
print("two_proportion_z(480, 500, 52, 60) =", repr(two_proportion_z(480, 500, 52, 60)))
print("two_proportion_z(90, 100, 65, 100) =", repr(two_proportion_z(90, 100, 65, 100)))
print("two_proportion_z(480, 500, 50, 60) =", repr(two_proportion_z(480, 500, 50, 60)))
a = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
b = [3, 5, 7, 9, 11, 13, 2, 4, 6, 8, 10, 12, 14, 1]
print("welch_z(a, b) =", repr(welch_z(a, b)), "sums", len(a), sum(a), sum(x * x for x in a), len(b), sum(b), sum(x * x for x in b))
print("critical z at alpha 0.0001 two-sided =", repr(stats.norm.ppf(1 - 0.00005)))
