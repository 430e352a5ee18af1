"""Driving a :class:`~pathgate.runtime.tools._scan.Scanner` to its end in tests."""

from __future__ import annotations

from pathgate.runtime.tools import _scan


def drain(sc: _scan.Scanner, hop: int | None = None) -> _scan.Scanner:
    """Step ``sc`` (by ``hop`` bytes, else the default) until it is done, then close it
    (closed also when a step raises); ``sc`` itself."""
    try:
        while not sc.done:
            if hop is None:
                sc.step()
            else:
                sc.step(hop)
    finally:
        sc.close()
    return sc
