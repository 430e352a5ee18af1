"""The build scripts and manifests cargo reads besides the ``Cargo.toml`` it starts from (for
the write guard's reading of the commands agent settings run; red team 20 L11, through
:mod:`._includes`).

``cargo test`` compiles and runs the build script of every package it builds: the root
package's (``build.rs``, or the file ``[package] build = "tools/gen.rs"`` names), every
workspace member's and every path dependency's. An agent that rewrites one gets its code run
at the next hook. :func:`cargo_files` names, from a ``Cargo.toml`` (parsed as TOML):

* ``[package] build`` (a string, or a list of them), else ``build.rs``;
* each ``[workspace] members`` entry's ``Cargo.toml`` and ``build.rs`` — a glob
  (``crates/*``) named as one (a member made later is covered) and expanded to read the
  members there —, each member read in turn;
* each dependency with a ``path`` (``[dependencies]``, ``[dev-dependencies]``,
  ``[build-dependencies]``, ``[target.*.…]``, ``[workspace.dependencies]``, ``[patch.*]``,
  ``[replace]``): its ``Cargo.toml`` and ``build.rs``, read in turn;
* the workspace root: ``[package] workspace = "…"``, and, for cargo started below the
  project's root, each ancestor's ``Cargo.toml`` (cargo looks upward for it) with its
  ``.cargo/`` configuration;
* the programs and files cargo's configuration (``.cargo/config.toml``, ``.cargo/config``)
  there and above names (:func:`cargo_config`, red team 23 N5);
* rustup's ``rust-toolchain.toml`` (and ``rust-toolchain``) there and above, and a local
  toolchain directory its ``[toolchain] path`` names, with everything below it.

A manifest that does not parse, a ``build`` or ``path`` that is not a string, a members list
that is not one of strings or a recursive glob (``**``) cannot be checked
(:class:`~._settings_load.Unchecked`); each file through the caller's bounded reader, at
most :data:`MAX_MANIFEST` bytes parsed a file. Code a proc-macro or a build dependency runs
is the project's own code (not followed, as a runner's scripts are not). Standard library
only.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pathgate.runtime.tools._named_index import GLOB
from pathgate.runtime.tools._settings_load import Unchecked

if TYPE_CHECKING:
    from pathgate.runtime.tools._includes import Source

__all__ = ["MAX_MANIFEST", "MAX_MEMBERS", "cargo_config", "cargo_files"]

#: Bytes of one ``Cargo.toml`` parsed (real ones are a few kilobytes), and the members one
#: glob may expand to (each read: past it, the workspace cannot be checked).
MAX_MANIFEST = 512 * 1024
MAX_MEMBERS = 1024
_DEP_TABLES = ("dependencies", "dev-dependencies", "dev_dependencies", "build-dependencies", "build_dependencies")


def cargo_files(manifest: str, src: Source) -> Iterator[tuple[str, bool]]:
    """What cargo started on ``manifest`` builds besides it (see the module). Blocking."""
    from pathgate.runtime.tools._includes import inside

    root = src.root.rstrip("/")
    queue: list[tuple[str, bool]] = [(manifest, True)]  # (Cargo.toml, read its workspace)
    seen = {manifest}
    d = os.path.dirname(manifest)
    ancestors: list[str] = []
    while d != root and inside(d, root):  # cargo looks upward for the workspace root
        d = os.path.dirname(d)
        ancestors.append(d)
        yield os.path.join(d, ".cargo"), True
        up = os.path.join(d, "Cargo.toml")
        yield up, False
        seen.add(up)
        queue.append((up, True))
    for d in dict.fromkeys((os.path.dirname(manifest), *ancestors)):
        yield from _toolchain(d, src)
        for named, below in cargo_config(d, os.path.dirname(manifest), src):
            if inside(named, root):
                yield named, below
    while queue:
        path, workspace = queue.pop(0)
        for target, tree, read_it, members in _manifest(path, workspace, src):
            if not inside(target, root):
                continue
            if tree is not None:
                yield target, tree
            if read_it and target not in seen:
                seen.add(target)
                queue.append((target, members))


def _manifest(path: str, workspace: bool, src: Source) -> Iterator[tuple[str, bool | None, bool, bool]]:
    """What one ``Cargo.toml`` names: ``(path, everything below it counts, read it as a
    manifest, read its workspace too)``."""
    doc = _read_toml(src, path)
    if doc is None:
        return
    here = os.path.dirname(path)
    package = doc.get("package")
    if isinstance(package, dict):
        build = package.get("build")
        scripts = [build] if isinstance(build, str) else build if isinstance(build, list) else []
        if not isinstance(build, (str, list, bool, type(None))) or not all(isinstance(s, str) for s in scripts):
            raise Unchecked
        for script in scripts:
            yield os.path.normpath(os.path.join(here, script)), False, False, False
        ws = package.get("workspace")
        if ws is not None:
            if not isinstance(ws, str):
                raise Unchecked
            yield os.path.normpath(os.path.join(here, ws, "Cargo.toml")), False, True, True
    for dep in _path_deps(doc):
        yield from _package(os.path.normpath(os.path.join(here, dep)), False)
    table = doc.get("workspace")
    if workspace and isinstance(table, dict):
        members = table.get("members", [])
        if not isinstance(members, list) or not all(isinstance(m, str) for m in members):
            raise Unchecked
        for member in members:
            pattern = os.path.normpath(os.path.join(here, member))
            if not GLOB.search(pattern):
                yield from _package(pattern, False)
                continue
            if "**" in pattern:
                raise Unchecked
            yield os.path.join(pattern, "Cargo.toml"), False, False, False
            yield os.path.join(pattern, "build.rs"), False, False, False
            for found in _expand(pattern, src):
                yield from _member(found, src)


def _toolchain(directory: str, src: Source) -> Iterator[tuple[str, bool]]:
    """rustup's toolchain file of ``directory`` (``rust-toolchain.toml``, the older
    ``rust-toolchain``): the file, and a local toolchain its ``[toolchain] path`` names,
    with everything below it (rustup runs that directory's ``cargo``)."""
    for name in ("rust-toolchain.toml", "rust-toolchain"):
        path = os.path.join(directory, name)
        yield path, False
        raw = src.read(path)
        if raw is None or (name == "rust-toolchain" and b"[" not in raw):
            continue  # (the older file may hold a channel name alone)
        doc = _parse_toml(raw)
        table = doc.get("toolchain")
        local = table.get("path") if isinstance(table, dict) else None
        if local is None:
            continue
        if not isinstance(local, str):
            raise Unchecked
        yield os.path.normpath(os.path.join(directory, local)), True


def _member(directory: str, src: Source) -> Iterator[tuple[str, bool | None, bool, bool]]:
    """A member a glob found: its manifest read in turn. The glob names its ``Cargo.toml`` and
    ``build.rs`` already; they are named again (the named index then resolves them on each
    write) only when a link is on the way, and the directory is noted, so that a link made
    in it later is read again (``tree`` ``None``: read, not named)."""
    from pathgate.runtime.tools._includes import _screened

    src.note(directory)
    names = [os.path.join(directory, n) for n in ("Cargo.toml", "build.rs")]
    linked = any(os.path.islink(p) for p in (directory, *names) if not _screened(p, src.root))
    # (read whether it exists or not: the reader judges its name first, so a secret or
    # host-filtered manifest answers the same either way; a missing one reads as absent)
    yield names[0], (False if linked else None), True, False
    yield names[1], (False if linked else None), False, False


def _package(directory: str, workspace: bool) -> Iterator[tuple[str, bool | None, bool, bool]]:
    """A package's directory: its manifest (read in turn) and default build script."""
    yield os.path.join(directory, "Cargo.toml"), False, True, workspace
    yield os.path.join(directory, "build.rs"), False, False, False


def _path_deps(doc: dict[str, object]) -> list[str]:
    """The ``path`` of every dependency, patch and replacement a manifest lists."""
    out: list[str] = []

    def deps(table: object) -> None:
        if not isinstance(table, dict):
            return
        for spec in table.values():
            if isinstance(spec, dict) and "path" in spec:
                if not isinstance(spec["path"], str):
                    raise Unchecked
                out.append(spec["path"])

    def tables(owner: object) -> None:
        if isinstance(owner, dict):
            for key in _DEP_TABLES:
                deps(owner.get(key))

    tables(doc)
    ws = doc.get("workspace")
    if isinstance(ws, dict):
        deps(ws.get("dependencies"))
    target = doc.get("target")
    if isinstance(target, dict):
        for cfg in target.values():
            tables(cfg)
    patch = doc.get("patch")
    if isinstance(patch, dict):
        for source in patch.values():
            deps(source)
    deps(doc.get("replace"))
    return out


def _expand(pattern: str, src: Source) -> list[str]:
    """The directories inside the root a members glob matches (component by component, as
    the ``glob`` crate matches: ``*`` within a name, case-sensitive), listed through
    :func:`._includes.listing`."""
    from pathgate.runtime.tools._includes import inside, listing

    root = src.root.rstrip("/")
    if not inside(pattern, root):
        return []
    current = [root]
    for part in pattern[len(root) + 1:].split("/"):
        nxt: list[str] = []
        for d in current:
            if not GLOB.search(part):
                nxt.append(os.path.join(d, part))
                continue
            for name in listing(d, src):
                full = os.path.join(d, name)
                if fnmatch.fnmatchcase(name, part) and os.path.isdir(full):
                    nxt.append(full)
                    if len(nxt) > MAX_MEMBERS:
                        raise Unchecked
        current = nxt
    return current


#: ``[build]`` keys naming a program cargo runs (a path, relative to the directory holding
#: ``.cargo/``, when it holds a ``/``; else looked up on ``PATH``).
_BUILD_PROGRAMS = ("rustc-wrapper", "rustc-workspace-wrapper", "rustc", "rustdoc")
#: Keys of a ``[target.<triple>]`` / ``[target.<cfg>]`` / ``[host]`` table naming programs
#: or flags that may name one (``-C linker=tools/ld``).
_TARGET_PROGRAMS = ("runner", "linker", "ar", "rustflags", "rustdocflags")


def cargo_config(directory: str, cwd: str, src: Source) -> Iterator[tuple[str, bool]]:
    """The project files ``directory``'s cargo configuration names (red team 23 N5): the
    programs of ``[build]`` (:data:`_BUILD_PROGRAMS`, ``rustflags``), of every
    ``[target.*]`` and ``[host]`` table (:data:`_TARGET_PROGRAMS`), of ``[alias]`` command
    lines, credential providers, ``[env]`` values, ``[patch]`` path dependencies, ``paths``
    overrides and ``[source]`` directories (with everything below them). Each word holding a
    ``/`` is named from the directory holding ``.cargo/`` and from ``cwd`` (where a runner
    started by cargo runs; a program without a ``/`` is looked up on ``PATH``); a value
    not a plain string or list of strings, or an ``include``, cannot be checked
    (:class:`Unchecked`)."""
    for name in ("config.toml", "config"):
        doc = _read_toml(src, os.path.join(directory, ".cargo", name))
        if doc is None:
            continue
        if "include" in doc:
            raise Unchecked  # (-Zconfig-include: another file read as configuration)
        for word, tree, program in _config_words(doc):
            for value in dict.fromkeys((word, word.rsplit("=", 1)[-1])):  # `-Clinker=tools/ld`
                if not value or value.startswith(("~", "$")) or (program and "/" not in value):
                    continue  # (a program without a `/` is looked up on PATH)
                for base in dict.fromkeys((directory, cwd)):
                    full = os.path.normpath(os.path.join(base, value))
                    if tree is None:  # a package: its manifest and build script
                        yield from ((os.path.join(full, n), False) for n in ("Cargo.toml", "build.rs"))
                    else:
                        yield full, tree


def _config_words(doc: dict[str, object]) -> Iterator[tuple[str, bool | None, bool]]:
    """The words of a cargo configuration that may name a project file (see
    :func:`cargo_config`): ``(word, everything below it counts — None: a package's
    directory, a program or its argument)``."""

    def words(value: object) -> list[str]:
        if value is None:
            return []
        if isinstance(value, str):  # a path with a blank, or a command line
            return list(dict.fromkeys((value, *value.split())))
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return list(value)
        raise Unchecked

    def table(value: object) -> dict[str, object]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise Unchecked
        return value

    build = table(doc.get("build"))
    for key in (*_BUILD_PROGRAMS, "rustflags", "rustdocflags"):
        yield from ((w, False, True) for w in words(build.get(key)))
    for owner in ("target", "host"):
        outer = table(doc.get(owner))
        for key, spec in outer.items():
            if isinstance(spec, dict):  # `[target.<triple>]`, `[host.<triple>]`
                for k in _TARGET_PROGRAMS:
                    yield from ((w, False, True) for w in words(spec.get(k)))
            elif key in _TARGET_PROGRAMS:  # `[host] linker = …`
                yield from ((w, False, True) for w in words(spec))
    for value in table(doc.get("alias")).values():
        yield from ((w, False, True) for w in words(value))
    registry = table(doc.get("registry"))
    for key in ("credential-provider", "global-credential-providers"):
        yield from ((w, False, True) for w in words(registry.get(key)))
    for spec in table(doc.get("registries")).values():
        yield from ((w, False, True) for w in words(table(spec).get("credential-provider")))
    for value in table(doc.get("credential-alias")).values():
        yield from ((w, False, True) for w in words(value))
    for value in table(doc.get("env")).values():
        if isinstance(value, dict):
            value = value.get("value")
        if not isinstance(value, str):
            raise Unchecked
        yield value, False, False
    for source in table(doc.get("patch")).values():
        for spec in table(source).values():
            path = table(spec).get("path")
            if path is not None:
                if not isinstance(path, str):
                    raise Unchecked
                yield path, None, False
    yield from ((w, None, False) for w in words(doc.get("paths")))
    for spec in table(doc.get("source")).values():
        for key in ("directory", "local-registry"):
            yield from ((w, True, False) for w in words(table(spec).get(key)))


def _read_toml(src: Source, path: str) -> dict[str, Any] | None:
    """A TOML file read through the guard's reader (``None``: absent); one over
    :data:`MAX_MANIFEST` bytes or not parsed cannot be checked (:class:`Unchecked`)."""
    raw = src.read(path)
    return None if raw is None else _parse_toml(raw)


def _parse_toml(raw: bytes) -> dict[str, Any]:
    """TOML bytes read; over :data:`MAX_MANIFEST` bytes or not parsed: :class:`Unchecked`."""
    import tomllib

    if len(raw) > MAX_MANIFEST:
        raise Unchecked
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        raise Unchecked from None
