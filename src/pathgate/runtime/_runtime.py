"""The runtime: one per project root, shared by many concurrent agents.

A :class:`Runtime` is built once and then only read: it owns the real root, the
:class:`~pathgate.Policy`, one cached :class:`IgnoreIndex`, the :class:`GatePipeline`, the
filesystem backends and the pathgate-owned :class:`anyio.CapacityLimiter` that bounds worker
threads. Everything one call needs lives in per-call objects (``GateContext``, the tool's
fact source), so calls never share mutable state.

Tools are thin functions over a runtime (``runtime/tools/*.py``); typed methods like
:meth:`Runtime.read_files` return raw results (contents and verdicts, no text).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from pathgate.config import Policy, load_config
from pathgate.errors import ConfigError
from pathgate.runtime._fs import Backends, FileOps, IoLimiter, OsFS, SyncFS
from pathgate.runtime._ignore import IgnoreIndex
from pathgate.runtime.gates import Gate, GatePipeline
from pathgate.runtime.tools.read_files import read_files as _read_files
from pathgate.verdicts import FileResult

__all__ = ["Runtime"]


class Runtime:
    """pathgate for one project root.

    * ``root``: the project directory (resolved with ``realpath`` once).
    * ``policy``: a :class:`~pathgate.Policy`; ``None`` loads ``pathgate.toml`` /
      ``[tool.pathgate]`` from the root (:func:`~pathgate.load_config`).
    * ``fs``: the blocking filesystem seam (default the real one). It serves the ignore
      engine and, when it also implements the read operations (any ``OsFS`` subclass does),
      the reads: tests and hosts inject faults or a remote filesystem here.
    * ``gates``: host gates, inserted before the ``ignore`` gate (after the opaque ones).
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        policy: Policy | None = None,
        *,
        fs: SyncFS | None = None,
        gates: Sequence[Gate] = (),
    ) -> None:
        real = os.path.realpath(root)
        if not os.path.isdir(real):
            raise ConfigError(f"project root {os.fspath(root)!r} is not a directory", key="root")
        self.root = real
        self.policy = load_config(real) if policy is None else policy
        self.fs: SyncFS = fs if fs is not None else OsFS()
        self.ops: FileOps = self.fs if isinstance(self.fs, FileOps) else OsFS()
        self.index = IgnoreIndex(real, self.policy.ignore_config(), fs=self.fs)
        self.pipeline = GatePipeline.for_policy(self.policy, extra=gates)
        self.limiter = IoLimiter(self.policy.max_concurrency)
        self.backends = Backends(self.ops, self.limiter)

    def __repr__(self) -> str:
        return f"Runtime({self.root!r})"

    async def read_files(
        self,
        paths: Sequence[str],
        *,
        offset: int | None = None,
        limit: int | None = None,
        budget: int | None = None,
        model: str | None = None,
    ) -> list[FileResult]:
        """Read ``paths`` through the gates; one :class:`~pathgate.FileResult` per path.

        Results keep the request's order; spellings of one file (``a``, ``./a``, ``d/../a``)
        are read once and reported under each spelling. ``offset`` (1-based first line) and
        ``limit`` (line count) window every file; ``budget`` (characters, default
        ``policy.read_budget``) caps the call's total content, cutting with a
        ``[FILE_TOO_LARGE]`` notice. ``model`` selects per-model size limits. A blocked path
        is a verdict, never an exception; a bad argument raises
        :class:`~pathgate.ToolArgumentError` naming it.
        """
        return await _read_files(self, paths, offset=offset, limit=limit, budget=budget, model=model)
