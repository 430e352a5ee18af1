"""Big case matrices on one event loop per case.

A matrix whose cases exercise code below the event loop (path spelling, errno handling)
gains nothing from running every case on both loops. ``alternating`` gives each case one
loop, alternating, so both loops still see the matrix; the other loop of each case is
kept as the ``slow`` exhaustive variant (``pytest -m slow``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

BACKENDS = ("asyncio", "trio")


def alternating(cases: Sequence[Any], ids: Sequence[str] | None = None, phase: int = 0) -> list[Any]:
    """``pytest.param``s of ``(*case, anyio_backend)``: case ``i`` on loop ``(i + phase) % 2``
    in the default run, on the other loop under the ``slow`` mark. A case that is not a tuple
    is one value. Use with ``parametrize((*names, "anyio_backend"), ...)``."""
    cases = [c if isinstance(c, tuple) else (c,) for c in cases]
    if ids is None:
        ids = ["-".join(map(str, c)) for c in cases]
    params = []
    for i, (case, case_id) in enumerate(zip(cases, ids, strict=True)):
        for k, backend in enumerate(BACKENDS):
            marks = [] if (i + phase) % 2 == k else [pytest.mark.slow]
            params.append(pytest.param(*case, backend, marks=marks, id=f"{backend}-{case_id}"))
    return params
