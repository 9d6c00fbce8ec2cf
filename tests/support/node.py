"""The scene page's ES modules (static/js/scene/), imported under Node as they ship, with no page.

A test gives a module, the body of an async JavaScript function run once per case (``m`` is the
module, ``c`` the case, what it returns the answer) and the cases: cases go in as JSON on stdin,
answers come back as JSON on stdout, as in tests/tabletop/scenes/test_composer_parser.py.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

STATIC_JS = Path(__file__).resolve().parents[2] / "static" / "js"
SCENE_MODULES = STATIC_JS / "scene"
NODE = shutil.which("node")


def _node_version() -> tuple[int, int] | None:
    if NODE is None:
        return None
    out = subprocess.run([NODE, "--version"], capture_output=True, text=True, timeout=30).stdout
    found = re.match(r"v(\d+)\.(\d+)", out.strip())
    return (int(found[1]), int(found[2])) if found else None


def _loads_typeless_modules(version: tuple[int, int]) -> bool:
    # The modules are .js files with no package.json saying "module": Node reads their syntax
    # and loads them as ES modules from 20.19 and 22.7 on (flagged before).
    major, minor = version
    return major >= 23 or (major == 22 and minor >= 7) or (major == 20 and minor >= 19)


def _why_not() -> str | None:
    version = _node_version()
    if NODE is None:
        return "Node.js is not installed: the page's ES modules run under node"
    if version is None or not _loads_typeless_modules(version):
        return (
            f"Node.js {version} cannot load the page's .js files as ES modules "
            "(it needs 20.19+ or 22.7+)"
        )
    return None


WHY_NOT = _why_not()

#: Every test of a module: skipped, with the reason, where Node cannot run the modules.
needs_node = pytest.mark.skipif(WHY_NOT is not None, reason=WHY_NOT or "")


def run(module: str, body: str, cases: list) -> list:
    """Import ``static/js/scene/<module>`` and answer each case with ``body`` (``m``, ``c``)."""
    path = SCENE_MODULES / module
    assert path.is_file(), path
    script = "\n".join(
        [
            f"import * as m from {json.dumps(path.as_uri())};",
            'import { readFileSync } from "node:fs";',
            "const answer = async function (c) {",
            body,
            "};",
            "const answers = [];",
            'for (const c of JSON.parse(readFileSync(0, "utf8"))) {',
            "  answers.push(await answer(c));",
            "}",
            "process.stdout.write(JSON.stringify(answers));",
        ]
    )
    done = subprocess.run(
        [NODE, "--input-type=module", "-e", script],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    answers = json.loads(done.stdout)
    assert len(answers) == len(cases)
    return answers


def one(module: str, body: str, case: object = None) -> object:
    """The answer to a single case."""
    (answer,) = run(module, body, [case])
    return answer
