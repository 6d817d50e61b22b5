"""Shell-style file tools (``cd``, ``ls``, ``touch`` ... relative to a current folder), the shape of
BFCL's file system: recognized, executed with a shell's refusals, self-checked, and asked about."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.synth.function_lists import STR, checked_tasks, function, synthesize_functions

from envfactory.ir.effect import ShellEffect
from envfactory.real.instrument import measure
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.tree import tree_rows
from envfactory.tasks.agents import gold, noop, success_rate


def _tool(name: str, props: dict[str, Any], required: list[str], response: dict[str, Any]) -> dict[str, Any]:
    return function(name, f"{name} in the current directory.", props, required, response)


TOOLS = [
    _tool("pwd", {}, [], {"current_working_directory": STR}),
    _tool("ls", {"a": {"type": "boolean"}}, [], {"current_directory_content": {"type": "array", "items": STR}}),
    _tool("cd", {"folder": STR}, ["folder"], {"current_working_directory": STR}),
    _tool("mkdir", {"dir_name": STR}, ["dir_name"], {}),
    _tool("touch", {"file_name": STR}, ["file_name"], {}),
    _tool("echo", {"content": STR, "file_name": STR}, ["content"], {"terminal_output": STR}),
    _tool("cat", {"file_name": STR}, ["file_name"], {"file_content": STR}),
    _tool("mv", {"source": STR, "destination": STR}, ["source", "destination"], {"result": STR}),
    _tool("cp", {"source": STR, "destination": STR}, ["source", "destination"], {"result": STR}),
    _tool("rm", {"file_name": STR}, ["file_name"], {"result": STR}),
    _tool("rmdir", {"dir_name": STR}, ["dir_name"], {"result": STR}),
    _tool("grep", {"file_name": STR, "pattern": STR}, ["file_name", "pattern"],
          {"matching_lines": {"type": "array", "items": STR}}),
    _tool("wc", {"file_name": STR, "mode": STR}, ["file_name"], {"count": {"type": "integer"}, "type": STR}),
    _tool("tail", {"file_name": STR, "lines": {"type": "integer"}}, ["file_name"], {"last_lines": STR}),
    _tool("find", {"path": STR, "name": STR}, [], {"matches": {"type": "array", "items": STR}}),
]  # fmt: skip


def _spec(tmp_path: Path) -> Any:
    return synthesize_functions(tmp_path, "files", TOOLS)


def test_commands_act_relative_to_the_current_folder(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    assert {b.effect.kind for b in spec.behaviours} == {"shell"}
    echo = spec.behaviour("echo").effect
    assert isinstance(echo, ShellEffect) and (echo.name_arg, echo.to_arg) == ("file_name", "content")
    ep = Environment(spec).episode()
    ep.reset(seed=0)

    def run(tool: str, **args: Any) -> Any:
        return ep.call_tool(tool, args)

    root = run("pwd").data["current_working_directory"]
    assert set(run("ls").data["current_directory_content"]) == {"docs", "notes"}
    assert run("cd", folder="docs").data == {"current_working_directory": f"{root}/docs"}
    assert run("touch", file_name="plan.txt").ok and run("touch", file_name="plan.txt").error == "conflict"
    assert run("echo", content="one\ntwo budget", file_name="plan.txt").ok
    assert run("echo", content="hi").data == {"terminal_output": "hi"}  # no file: to the terminal
    assert run("cat", file_name="plan.txt").data == {"file_content": "one\ntwo budget"}
    assert run("grep", file_name="plan.txt", pattern="budget").data == {"matching_lines": ["two budget"]}
    assert run("wc", file_name="plan.txt", mode="w").data == {"count": 3, "type": "words"}
    assert run("tail", file_name="plan.txt", lines=1).data == {"last_lines": "two budget"}
    assert run("cat", file_name="nope.txt").error == "not_found"
    assert run("cat", file_name="..").error == "precondition_failed"  # a folder, not a file
    assert run("cp", source="plan.txt", destination="copy.txt").ok and run("cat", file_name="copy.txt").ok
    assert run("mkdir", dir_name="old").ok and run("mv", source="copy.txt", destination="old").ok
    assert run("rmdir", dir_name="old").error == "precondition_failed"  # not empty
    assert run("find", path=".", name="copy").data == {"matches": ["./old/copy.txt"]}
    assert run("cd", folder="..").ok and run("cd", folder="..").error == "precondition_failed"  # above the root
    assert run("cd", folder="nowhere").error == "not_found"
    assert run("rm", file_name="docs").ok and "docs" not in run("ls").data["current_directory_content"]
    before = ep.state_hash()
    assert run("cd", folder="notes").ok and ep.state_hash() != before  # the current folder is state


def test_shell_tool_sets_pass_their_self_check_and_yield_tasks(tmp_path: Path) -> None:
    env, tasks = checked_tasks(_spec(tmp_path), 20)
    assert len(tasks) == 20 and all(t.gold[0].tool == "cd" or t.instruction.startswith("Go") for t in tasks)
    episode = env.episode(max_steps=50)
    assert success_rate(episode, tasks, gold) == 1.0 and success_rate(episode, tasks, noop) == 0.0


SHELL_CLASS = '''
class Files:
    def __init__(self):
        self.files = {}
        self.cwd = ""

    def _load_scenario(self, scenario):
        self.files = {}
        def walk(name, node, where):
            path = where + "/" + name
            self.files[path] = node.get("content", None) if node["type"] == "file" else None
            for child, sub in node.get("contents", {}).items():
                walk(child, sub, path)
        for name, node in scenario["root"].items():
            walk(name, node, "")
        self.cwd = "/" + next(iter(scenario["root"]))

    def ls(self, a: bool = False) -> dict:
        """List the current directory."""
        names = [p.rsplit("/", 1)[1] for p in self.files if p.rsplit("/", 1)[0] == self.cwd]
        return {"current_directory_content": sorted(names)}

    def cd(self, folder: str) -> dict:
        """Change directory."""
        path = self.cwd.rsplit("/", 1)[0] if folder == ".." else self.cwd + "/" + folder
        if path not in self.files or self.files[path] is not None:
            return {"error": f"cd: {folder}: No such directory"}
        self.cwd = path
        return {"current_working_directory": path}

    def cat(self, file_name: str) -> dict:
        """Read a file."""
        content = self.files.get(self.cwd + "/" + file_name)
        if content is None:
            return {"error": f"cat: {file_name}: No such file or directory"}
        return {"file_content": content}

    def touch(self, file_name: str) -> dict:
        """Make an empty file."""
        path = self.cwd + "/" + file_name
        if path in self.files:
            return {"error": f"touch: {file_name}: File exists"}
        self.files[path] = ""
        return {}

    def mkdir(self, dir_name: str) -> dict:
        """Make a folder."""
        path = self.cwd + "/" + dir_name
        if path in self.files:
            return {"error": f"mkdir: {dir_name}: File exists"}
        self.files[path] = None
        return {}
'''


def test_a_scenario_tree_starts_both_sides_alike(tmp_path: Path) -> None:
    tree = {"root": {"home": {"type": "directory", "contents": {
        "docs": {"type": "directory", "contents": {"a.txt": {"type": "file", "content": "alpha"}}},
        "notes": {"type": "directory", "contents": {}}}}}}  # fmt: skip
    rows = tree_rows(tree)
    assert rows is not None and {r["path"]: r["type"] for r in rows} == {
        "/home": "directory",
        "/home/docs": "directory",
        "/home/docs/a.txt": "file",
        "/home/notes": "directory",
    }
    (tmp_path / "files.py").write_text(SHELL_CLASS)
    (tmp_path / "tree.json").write_text(json.dumps(tree))
    spec = synthesize(tmp_path / "files.py", trust_code=True)  # the descriptions only (cd, ls, ... by name)
    assert {b.effect.kind for b in spec.behaviours} == {"shell"}
    real = f"{tmp_path / 'files.py'}:Files"
    measured = measure(spec, real, scenario=str(tmp_path / "tree.json"), sequences=10, length=8)
    assert measured.outcome >= 0.9 and measured.outcome >= measured.stub_outcome + 0.2
