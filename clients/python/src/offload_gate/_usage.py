"""@module _usage: one model call's usage as the session books it, read from a
mapping or an object in Anthropic's shape (``input_tokens`` without the
cache's reads and writes; ``cache_creation`` split by TTL), as the TypeScript
client's session-ledger.ts reads it.

A value that is there but is not a count, a call without its input or output
count, or a 1-hour split larger than the writes it splits, is named as an
issue instead of counted as zero: the session then does not send a bill it
cannot stand behind, and says why.

>>> read_usage({"input_tokens": 10, "output_tokens": 2, "cache_creation_input_tokens": 30, "cache_creation": {"ephemeral_1h_input_tokens": 20}})
({'input_tokens': 10, 'output_tokens': 2, 'cache_read_input_tokens': 0, 'cache_creation_input_tokens': 30}, 20, [])
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Mapping, Tuple

USAGE_KEYS = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
# A model call's usage without these is not a bill; the others may be absent (no cache used).
_REQUIRED = ("input_tokens", "output_tokens")


def field_of(value: Any, key: str) -> Any:
    """A field of a mapping or an attribute of an object (the provider SDKs' usage objects)."""
    if value is None:
        return None
    return value.get(key) if isinstance(value, Mapping) else getattr(value, key, None)


def _count(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0 and value == int(value)


def read_usage(usage: Any, turn: bool = True) -> Tuple[Dict[str, int], int, List[str]]:
    """The four counts, the 1-hour writes among the cache writes, and the issues (each naming its field).
    With ``turn=False`` (usage a counted call did not report at the time) nothing is required."""
    counted = dict.fromkeys(USAGE_KEYS, 0)
    if usage is None:
        return counted, 0, ["usage is missing"] if turn else []
    issues: List[str] = []
    for key in USAGE_KEYS:
        value = field_of(usage, key)
        if value is None:
            if turn and key in _REQUIRED:
                issues.append(f"usage.{key} is missing")
        elif _count(value):
            counted[key] = int(value)
        else:
            issues.append(f"usage.{key} is {value!r}, not a count of tokens")
    one_hour = field_of(field_of(usage, "cache_creation"), "ephemeral_1h_input_tokens")
    if one_hour is None:
        return counted, 0, issues
    if not _count(one_hour):
        issues.append(f"usage.cache_creation.ephemeral_1h_input_tokens is {one_hour!r}, not a count of tokens")
        return counted, 0, issues
    if one_hour > counted["cache_creation_input_tokens"]:
        issues.append("usage.cache_creation.ephemeral_1h_input_tokens exceeds usage.cache_creation_input_tokens")
        return counted, 0, issues
    return counted, int(one_hour), issues


def billed_usage(usage: Mapping[str, int], written_1h: int) -> Dict[str, Any]:
    """The session's summed usage as ``POST /v1/sessions`` takes it: split by TTL only when
    there were 1-hour writes (priced at the 1-hour rate), else the report it always was.

    >>> billed_usage({"input_tokens": 1, "output_tokens": 1, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 30}, 20)["cache_creation"]
    {'ephemeral_5m_input_tokens': 10, 'ephemeral_1h_input_tokens': 20}
    """
    body: Dict[str, Any] = dict(usage)
    if written_1h > 0:
        body["cache_creation"] = {
            "ephemeral_5m_input_tokens": usage["cache_creation_input_tokens"] - written_1h,
            "ephemeral_1h_input_tokens": written_1h,
        }
    return body
