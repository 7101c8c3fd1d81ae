"""@module _json: how the request and answer dataclasses meet JSON (the gate's
field names): a request's body is its set fields plus ``extra``; an answer is
read by field name, keeping what this client does not know in ``extra`` so a
field the server adds later never breaks the parse."""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, ClassVar, Dict, List, Mapping, Sequence, Type, TypeVar

from .errors import GateAnswerError

JSONObject = Dict[str, Any]
T = TypeVar("T")
A = TypeVar("A", bound="_Answer")

# Fields a dataclass keeps for itself, never sent or read as JSON.
_LOCAL_FIELDS = frozenset({"extra", "error"})


def _to_json(obj: Any) -> JSONObject:
    """The JSON body of a request dataclass: unset (None) fields left out, ``extra`` merged in."""
    body: JSONObject = {}
    for f in dataclasses.fields(obj):
        if f.name in _LOCAL_FIELDS:
            continue
        value = getattr(obj, f.name)
        if value is None:
            continue
        if isinstance(value, tuple):
            value = list(value)
        elif isinstance(value, list):
            value = [_item_json(item) for item in value]
        body[f.name] = value
    body.update(getattr(obj, "extra", None) or {})
    return body


def _item_json(item: Any) -> Any:
    """A list item as JSON: a request dataclass (a Segment) by its own body, a tuple as a list."""
    if isinstance(item, _Request):
        return item.to_json()
    if isinstance(item, Mapping):
        return dict(item)
    return list(item) if isinstance(item, tuple) else item


def _from_json(cls: Type[T], data: Any, nested: Mapping[str, Callable[[Any], Any]] = {}) -> T:
    """Builds an answer dataclass from a JSON object: known fields by name
    (``nested`` converts the structured ones), everything else into ``extra``."""
    if not isinstance(data, Mapping):
        raise GateAnswerError(f"expected a JSON object for {cls.__name__}, got {type(data).__name__}")
    names = {f.name for f in dataclasses.fields(cls)} - _LOCAL_FIELDS  # type: ignore[arg-type]
    known: JSONObject = {}
    extra: JSONObject = {}
    for key, value in data.items():
        if key in names:
            convert = nested.get(key)
            known[key] = convert(value) if convert is not None and value is not None else value
        else:
            extra[key] = value
    try:
        return cls(**known, extra=extra)  # type: ignore[call-arg]
    except TypeError as exc:  # a required field is missing
        raise GateAnswerError(f"incomplete {cls.__name__}: {exc}") from exc


def _as_request(cls: Type[T], request: Any, fields: Mapping[str, Any]) -> T:
    """``request`` as ``cls``: an instance as it is, else a mapping or any dataclass
    (e.g. the reference's ``OffloadGateInputs``) with ``fields`` on top. Keys the
    dataclass does not know go to ``extra`` (the gate refuses them by name)."""
    if isinstance(request, cls) and not fields:
        return request
    data: JSONObject = {}
    if isinstance(request, cls):
        data.update(_to_json(request))
    elif dataclasses.is_dataclass(request) and not isinstance(request, type):
        data.update(dataclasses.asdict(request))
    elif isinstance(request, Mapping):
        data.update(request)
    elif request is not None:
        raise TypeError(f"expected a {cls.__name__}, a mapping or a dataclass, got {type(request).__name__}")
    data.update(fields)
    names = {f.name for f in dataclasses.fields(cls)} - _LOCAL_FIELDS  # type: ignore[arg-type]
    extra = {key: value for key, value in data.items() if key not in names}
    return cls(**{key: value for key, value in data.items() if key in names}, extra=extra)  # type: ignore[call-arg]


class _Request:
    """A request dataclass: its JSON body is its set fields plus ``extra``."""

    def to_json(self) -> JSONObject:
        return _to_json(self)


class _Answer:
    """An answer dataclass: read from JSON by field name, unknown keys kept in ``extra``.
    ``_nested`` names the fields that are answers themselves."""

    _nested: ClassVar[Mapping[str, Callable[[Any], Any]]] = {}

    @classmethod
    def from_json(cls: Type[A], data: Any) -> A:
        return _from_json(cls, data, cls._nested)


def as_request(cls: Type[T], request: Any = None, **fields: Any) -> T:
    """Public form of the coercion the clients use: ``cls`` from an instance, a
    mapping or any dataclass, with keyword fields on top.

    >>> as_request(GateRequest, {"model_name": "gpt-5"}, output_tokens=20_000).output_tokens
    20000
    """
    return _as_request(cls, request, fields)


def as_requests(cls: Type[T], items: Sequence[Any]) -> List[T]:
    return [_as_request(cls, item, {}) for item in items]
