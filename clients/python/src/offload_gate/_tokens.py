"""Tool-output sizes in real tokens, as the TypeScript client's ``tokens.ts``.

chars / 4 undercounts real tokens by 7-40% on replayed transcripts, so a
session estimates an output it has not sent yet with a tokens-per-character
factor per model family, from ``clients/constants.json`` (the one place both
clients read their shared constants, generated into ``_constants.py``), and
keeps learning that factor from the prompt's growth between model calls.

>>> family_factor("claude-opus-4-6")
0.35
"""

from __future__ import annotations

import math
from typing import List, Mapping, Tuple

from ._constants import DEFAULT_TOKENS_PER_CHAR, PRIOR_CHARS, TOKENS_PER_CHAR

# Fewer or more tokens a character than this is a compaction or a cache reset, not a size.
_PLAUSIBLE = (0.05, 2.0)


def family_factor(model: str) -> float:
    """The starting factor: the longest family name the model starts with (after any ``provider/``), else the default.

    >>> family_factor("openai/gpt-5"), family_factor("mystery-model")
    (0.3, 0.33)
    """
    name = model.rsplit("/", 1)[-1].lower()
    families = [f for f in TOKENS_PER_CHAR if name.startswith(f)]
    return TOKENS_PER_CHAR[max(families, key=len)] if families else DEFAULT_TOKENS_PER_CHAR


class TokenMeter:
    """One session's learned factor, from the prompt's growth between the calls before and after each output.

    >>> meter = TokenMeter("claude-opus-4-6")
    >>> meter.observe({"input_tokens": 5_000, "output_tokens": 100}); meter.added("a", 8_000)
    >>> meter.observe({"input_tokens": 8_900, "output_tokens": 100}); meter.tokens(1_000)  # grew 3,800 over 8,000 chars
    386
    """

    def __init__(self, model: str) -> None:
        self._prior = family_factor(model)
        self._chars = 0
        self._tokens = 0
        self._seen: set = set()
        self._pending: List[Tuple[str, int]] = []
        self._last: Tuple[int, int] | None = None

    @property
    def factor(self) -> float:
        w = PRIOR_CHARS
        return (w * self._prior + self._tokens) / (w + self._chars)

    def tokens(self, chars: int) -> int:
        """A text's size at the learned factor."""
        return math.ceil(chars * self.factor)

    def added(self, tool_call_id: str, chars: int) -> None:
        """An output that enters the history before the next model call (once per id)."""
        if tool_call_id not in self._seen:
            self._seen.add(tool_call_id)
            self._pending.append((tool_call_id, chars))

    def observe(self, usage: Mapping[str, int]) -> None:
        """A call's usage in Anthropic's shape (``input_tokens`` without the cache's reads and writes)."""
        keys = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
        prompt = sum(max(0, int(usage.get(k) or 0)) for k in keys)
        answer = max(0, int(usage.get("output_tokens") or 0))
        pending, self._pending = self._pending, []
        last, self._last = self._last, (prompt, answer)
        chars = sum(c for _, c in pending)
        if last is None or chars <= 0:
            return
        grown = prompt - last[0] - last[1]
        if _PLAUSIBLE[0] <= grown / chars <= _PLAUSIBLE[1]:
            self._chars += chars
            self._tokens += grown
