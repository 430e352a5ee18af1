"""Red-team pass 4, F12: over stdio, a request line the MCP SDK cannot validate (a lone
surrogate escape, ``params`` that is not an object, truncated JSON) got no answer at all, so
the client's call never ended. ``pathgate mcp`` answers each with a JSON-RPC error on the
request's id and goes on serving."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

pytest.importorskip("mcp")

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def test_invalid_lines_get_an_error_answer(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    lines = [
        json.dumps(INIT),
        json.dumps(INITIALIZED),
        '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"read_files",'
        '"arguments":{"paths":["\\ud800"]}}}',
        '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":"x"}',
        '{"jsonrpc":"2.0","id":"eight","method":"tools/call"',
        '{"jsonrpc":"2.0","method":"notifications/x","params":"x"}',  # a notification: no answer
        "not json at all",
        # red team 16 G9: nested past the interpreter's recursion limit (the server died)
        '{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"read_files","arguments":'
        '{"paths":' + "[" * 100_000 + '"a"' + "]" * 100_000 + "}}}",
        "[" * 100_000,
        json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                    "params": {"name": "read_files", "arguments": {"paths": ["a.txt"]}}}),
    ]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    proc = subprocess.Popen([sys.executable, "-m", "pathgate", "mcp", "--root", str(tmp_path)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdin is not None and proc.stdout is not None
    answers = []
    watchdog = threading.Timer(60, proc.kill)  # a server that answers nothing cannot hang the suite
    watchdog.start()
    try:
        proc.stdin.write("\n".join(lines) + "\n")
        proc.stdin.flush()
        while not any(a.get("id") == 9 for a in answers):  # the last request's answer ends it
            line = proc.stdout.readline()
            assert line, f"the server stopped before answering every request: {answers}"
            answers.append(json.loads(line))
    finally:
        watchdog.cancel()
        proc.stdin.close()
        proc.wait(timeout=30)
    by_id = {a.get("id"): a for a in answers}
    assert by_id[6]["error"]["code"] == -32600
    assert by_id[7]["error"]["code"] == -32600
    assert by_id["eight"]["error"]["code"] == -32700
    assert by_id[None]["error"]["code"] == -32700  # "not json at all": no id to answer on
    assert json.loads(by_id[9]["result"]["content"][0]["text"]) == {"a.txt": "a\n"}
    assert by_id[10]["error"]["code"] in (-32700, -32600)
    assert len(answers) == 8, answers  # init, 6, 7, eight, the unparsable lines (2), 10, 9
