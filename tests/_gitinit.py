"""``git init -q ROOT`` without a git process per test.

The first call for a given git environment runs git itself into a template; later calls copy
that template's ``.git`` (``shutil.copytree``, modes and symlinks kept), which is what git
would have written: a fresh repository depends only on git's configuration, which is keyed
here by every ``GIT_*`` variable and, when git reads the user's files, ``HOME`` and
``XDG_CONFIG_HOME``. A root that already holds a ``.git`` is left to git (a re-init).
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

_TEMPLATES: dict[tuple[object, ...], Path] = {}
_USER = (os.environ.get("HOME"), os.environ.get("XDG_CONFIG_HOME"))


def _key(git: str, env: Mapping[str, str]) -> tuple[object, ...] | None:
    """What a fresh repository depends on; None when git reads a per-test user's files
    (a template would serve one test only)."""
    gits = tuple(sorted((k, v) for k, v in env.items() if k.startswith("GIT_")))
    user = () if "GIT_CONFIG_GLOBAL" in env else (env.get("HOME"), env.get("XDG_CONFIG_HOME"))
    if user and user != _USER:
        return None
    return (shutil.which(git) or git, gits, user)


def _remove(top: Path) -> None:
    shutil.rmtree(top, ignore_errors=True)


def git_init(root: Path | str, *, git: str = "git", env: Mapping[str, str] | None = None) -> None:
    """What ``git init -q root`` (with ``env``, default: this process's) leaves in ``root``."""
    root = Path(root)
    env = dict(os.environ if env is None else env)
    key = _key(git, env)
    if key is None or (root / ".git").exists() or (root / ".git").is_symlink():
        subprocess.run([git, "init", "-q", str(root)], check=True, env=env, capture_output=True)
        return
    template = _TEMPLATES.get(key)
    if template is None:
        top = Path(tempfile.mkdtemp(prefix="pathgate-git-template-"))
        atexit.register(_remove, top)
        template = top / "repo"
        subprocess.run([git, "init", "-q", str(template)], check=True, env=env, capture_output=True)
        _TEMPLATES[key] = template
    root.mkdir(parents=True, exist_ok=True)
    shutil.copytree(template / ".git", root / ".git", symlinks=True)
