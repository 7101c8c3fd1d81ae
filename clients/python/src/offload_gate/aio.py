"""The asyncio client: :class:`AsyncGateClient`."""

from __future__ import annotations

import asyncio
import functools
from concurrent.futures import ThreadPoolExecutor
from typing import Any, List, Optional, Sequence, TypeVar

from ._calls import Call, ClientBase, answer_of, merge_reports, unreachable
from .client import _mapping
from .errors import GateError, GateUnreachable
from .models import GateDecision, Plan, Report

T = TypeVar("T")


class AsyncGateClient(ClientBase):
    """The asyncio twin of :class:`~offload_gate.GateClient`: the same methods
    as coroutines, the same fail-safe answers, the same retries.

    Each request runs on the client's own threads (``pool_size`` of them, over
    as many keep-alive connections; the standard library has no async HTTP
    client), so it never queues behind other users of the loop's default
    executor. ``timeout`` is enforced on the event loop: a call never keeps the
    agent waiting past it, and cancelling the awaiting task abandons the call.

    Example::

        async with AsyncGateClient() as gate:
            decisions = await gate.decide_batch([{"model_name": "gpt-5", "output_chars": len(t)} for t in outputs])
    """

    @functools.cached_property
    def _executor(self) -> ThreadPoolExecutor:
        # Made on first use, so the constructor is ClientBase's own, signature and checks alike.
        return ThreadPoolExecutor(max_workers=self.pool_size, thread_name_prefix="offload-gate")

    async def decide(
        self, request: Any = None, /, *, timeout: Optional[float] = None, raise_on_error: Optional[bool] = None, **fields: Any
    ) -> GateDecision:
        """See :meth:`GateClient.decide`."""
        return await self._run(self._decide_call(request, fields), timeout, raise_on_error)

    async def decide_batch(
        self, requests: Sequence[Any], *, timeout: Optional[float] = None, raise_on_error: Optional[bool] = None
    ) -> List[GateDecision]:
        """See :meth:`GateClient.decide_batch`."""
        decisions: List[GateDecision] = []
        for call in self._batch_calls(requests):
            chunk: List[GateDecision] = await self._run(call, timeout, raise_on_error)
            decisions.extend(chunk)
        return decisions

    async def plan(
        self, request: Any = None, /, *, timeout: Optional[float] = None, raise_on_error: Optional[bool] = None, **fields: Any
    ) -> Plan:
        """See :meth:`GateClient.plan`."""
        return await self._run(self._plan_call(request, fields), timeout, raise_on_error)

    async def report_outcomes(
        self, outcomes: Sequence[Any], *, timeout: Optional[float] = None, raise_on_error: Optional[bool] = None
    ) -> Report:
        """See :meth:`GateClient.report_outcomes`."""
        return await self._report(self._outcome_calls(outcomes), timeout, raise_on_error)

    async def report_session(
        self, session: Any = None, /, *, timeout: Optional[float] = None, raise_on_error: Optional[bool] = None, **fields: Any
    ) -> Report:
        """See :meth:`GateClient.report_session`."""
        item = session if not fields else {**_mapping(session), **fields}
        return await self.report_sessions([item], timeout=timeout, raise_on_error=raise_on_error)

    async def report_sessions(
        self, sessions: Sequence[Any], *, timeout: Optional[float] = None, raise_on_error: Optional[bool] = None
    ) -> Report:
        """See :meth:`GateClient.report_sessions`."""
        return await self._report(self._session_calls(sessions), timeout, raise_on_error)

    async def aclose(self) -> None:
        """Closes the idle connections and the client's threads."""
        if "_executor" in self.__dict__:  # made only if a call ran
            self._executor.shutdown(wait=False, cancel_futures=True)
        self._transport.close()

    async def __aenter__(self) -> "AsyncGateClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def _report(self, calls: Sequence[Call[Report]], timeout: Optional[float], raise_on_error: Optional[bool]) -> Report:
        reports: List[Report] = []
        for call in calls:
            reports.append(await self._run(call, timeout, raise_on_error))
            if not reports[-1].ok:
                break
        return merge_reports(reports)

    async def _run(self, call: Call[T], timeout: Optional[float], raise_on_error: Optional[bool]) -> T:
        loop = asyncio.get_running_loop()
        budget = self.timeout if timeout is None else timeout
        deadline = loop.time() + budget
        try:
            attempt = 0
            while True:
                remaining = deadline - loop.time()
                if remaining <= 0:
                    raise GateUnreachable(f"no answer within the {budget:g}s timeout")
                try:
                    response = await asyncio.wait_for(
                        loop.run_in_executor(
                            self._executor, self._transport.request, call.method, call.path, call.body, self._headers, remaining
                        ),
                        remaining,
                    )
                except Exception as exc:
                    raise unreachable(exc, budget) from exc
                wait = self.retry.wait(response, attempt, deadline - loop.time())
                if wait is None:
                    return answer_of(call, response)
                await asyncio.sleep(wait)
                attempt += 1
        except GateError as error:
            return self._fallback(call, error, raise_on_error)
