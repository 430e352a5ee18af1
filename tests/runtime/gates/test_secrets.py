from __future__ import annotations

from pathlib import Path

import pytest

from pathgate import Gate, Status
from pathgate.config import DEFAULT_SECRET_PATTERNS
from pathgate.runtime.gates import SecretMatcher
from pathgate.runtime.gates.secrets import normalize_name
from tests.runtime.gates._tree import BACKENDS, read_one, write_tree

SECRET_NAMES = [
    ".env",
    ".ENV",
    ".Env",
    ".env.local",
    ".env.production",
    ".ENV.LOCAL",
    ".env ",
    ".env.",
    ".env. . ",
    ".env:$DATA",
    ".env::$DATA",
    ".env.example.local",
    "id_rsa",
    "id_rsa.pub",
    "ID_ED25519",
    "server.pem",
    "tls.KEY",
    ".netrc",
    ".npmrc",
    ".pypirc",
    "credentials.json",
    # an editor's backup, autosave or swap file of a secret holds the same secret
    ".env~",
    ".env.local~~",
    "#.env#",
    "#.ENV.PRODUCTION#",
    "..env.swp",
    "..env.local.swo",
    "server.pem~",
    "#.netrc#",
    ".credentials.json.swp",
    ".env___jb_old___",
    "id_rsa___jb_tmp___",
    ".env-production",
    ".ENV_LOCAL",
    ".env-example.bak",
    "server.key.~1~",
    ".netrc.~12~",
    ".id_rsa.swm",
    "..env.swa",
    "server.key.bak",
    "credentials.json.orig",
    "id_ed25519.old",
    "tls.pem.save",
]
NOT_SECRET = [".envrc", "app.env", "env", ".env.example", ".ENV.EXAMPLE", ".env.sample ", ".env.template",
              "environment.py", "README.md", "key.txt",
              "README.md~", "#notes#", ".main.py.swp", ".env-example", ".env_sample", ".ENV-TEMPLATE",
              "a.py___jb_old___", "main.py.bak", "notes.~1~", ".bak", ".vimrc.swp", "#.env.sample#", "~", "##", ".swp"]


@pytest.mark.parametrize("name", SECRET_NAMES)
def test_secret_names(name: str) -> None:
    assert SecretMatcher(DEFAULT_SECRET_PATTERNS).is_secret(f"pkg/{name}")


@pytest.mark.parametrize("name", NOT_SECRET)
def test_not_secret_names(name: str) -> None:
    assert not SecretMatcher(DEFAULT_SECRET_PATTERNS).is_secret(f"pkg/{name}")


def test_path_patterns() -> None:
    m = SecretMatcher([".aws/credentials", "*.pem"])
    assert m.is_secret(".aws/credentials")
    assert m.is_secret(".aws/credentials~") and m.is_secret("home/.aws/#credentials#")
    assert m.in_dir(".aws")("credentials~") and not m.in_dir(".aws")("config~")
    assert m.is_secret("home/.AWS/credentials")
    assert not m.is_secret("aws/credentials")
    assert not SecretMatcher([]).is_secret("x.pem")
    assert SecretMatcher([]).is_secret(".env")  # .env is not configurable away


def test_normalize() -> None:
    assert normalize_name(".ENV:$DATA") == ".env"
    assert normalize_name(".env. ") == ".env"


def _tree(root: Path) -> Path:
    files: dict[str, str | bytes] = {name: f"S={i}\n" for i, name in enumerate(SECRET_NAMES)}
    files.update({name: "ok\n" for name in NOT_SECRET})
    files["innocent.txt"] = "-> .env"
    files["notes.pem"] = "-> README.md"
    files["deep/link"] = "-> ../.env.local"
    return write_tree(root, files)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """The secrets tree, for a test that changes it."""
    return _tree(tmp_path / "root")


@pytest.fixture(scope="module")
def shared_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The secrets tree, built once for the tests that only read it (hundreds of cases)."""
    return _tree(tmp_path_factory.mktemp("secrets") / "root")


def assert_opaque(verdict: object) -> None:
    from pathgate import Verdict

    assert isinstance(verdict, Verdict)
    assert verdict.status is Status.BLOCKED and verdict.opaque
    assert verdict.rule is None and verdict.exists is None and verdict.remedy is None
    assert verdict.size is None and verdict.detail is None


@pytest.mark.anyio
@pytest.mark.parametrize("fs_backend", BACKENDS)
@pytest.mark.parametrize(
    "name", [*SECRET_NAMES, "innocent.txt", "notes.pem", "deep/link", "./.env", "x/../.env"]
)
async def test_secret_reads_are_opaque(shared_tree: Path, name: str, fs_backend: str) -> None:
    r = await read_one(shared_tree, name, fs_backend=fs_backend)
    assert r.content is None and r.relpath is None
    assert_opaque(r.verdict)
    assert r.verdict is not None and r.verdict.gate is Gate.SECRETS


@pytest.mark.anyio
@pytest.mark.parametrize("name", NOT_SECRET)
async def test_templates_and_lookalikes_read(shared_tree: Path, name: str) -> None:
    r = await read_one(shared_tree, name)
    assert r.content == "ok\n", r.verdict


@pytest.mark.anyio
async def test_missing_secret_is_opaque_too(shared_tree: Path) -> None:
    r = await read_one(shared_tree, "nowhere/.env.staging")
    assert_opaque(r.verdict)


@pytest.mark.anyio
async def test_enforce_secrets_off_reads_unignored_secret(tree: Path) -> None:
    r = await read_one(tree, ".env", enforce_secrets=False)
    assert r.content == "S=0\n"


@pytest.mark.anyio
async def test_enforce_secrets_off_ignored_secret_stays_opaque(tree: Path) -> None:
    (tree / ".gitignore").write_text(".env*\n")
    r = await read_one(tree, ".env.local", enforce_secrets=False)
    assert_opaque(r.verdict)
    assert r.verdict is not None and r.verdict.gate is Gate.IGNORE  # the span may name the gate
    assert r.relpath is None


@pytest.mark.anyio
async def test_enforce_secrets_off_later_gates_are_opaque(tree: Path) -> None:
    (tree / "big.pem").write_text("x" * 50)
    r = await read_one(tree, "big.pem", enforce_secrets=False, size_limit=10)
    assert_opaque(r.verdict)
    r = await read_one(tree, "gone.key", enforce_secrets=False)
    assert_opaque(r.verdict)


@pytest.mark.anyio
async def test_custom_patterns(tree: Path) -> None:
    (tree / "state.tfstate").write_text("x")
    r = await read_one(tree, "state.tfstate", secret_patterns=(*DEFAULT_SECRET_PATTERNS, "*.tfstate"))
    assert_opaque(r.verdict)
    r = await read_one(tree, "server.pem", secret_patterns=())
    assert r.content is not None


@pytest.mark.anyio
async def test_backups_of_secrets_leave_no_trace_in_discovery(tmp_path: Path) -> None:
    """The same glob, list and search on a tree with and without editor backups of secrets."""
    from pathgate import Runtime

    plain = {"src/a.py": "TOKEN = 1\n", "README.md~": "TOKEN old\n"}
    backups = {".env~": "TOKEN=x\n", "#.env#": "TOKEN=x\n", "src/..env.local.swp": "TOKEN=x\n"}
    outputs = []
    for name, files in (("without", plain), ("with", {**plain, **backups})):
        root = write_tree(tmp_path / name, files)
        async with Runtime(root) as rt:
            outputs.append([
                await rt.call("glob", {"pattern": "**"}),
                await rt.call("list_directory", {"path": "."}),
                await rt.call("list_directory", {"path": "src"}),
                await rt.call("code_search", {"regex": "TOKEN"}),
            ])
            if name == "with":
                for backup in backups:
                    assert await rt.call("read_files", {"paths": [backup]}) == {backup: "[BLOCKED]"}
    assert outputs[0] == outputs[1]
