"""The layout of the web layer: one home per game system (issue "One home per game system").

Generic code (accounts, campaigns, characters, scenes and their templates) never names a game
system: it asks the registry (tabletop.systems). So (a) no module outside tabletop/systems/
imports a system package, (b) no template outside templates/systems/ names one, (c) nothing in
tabletop/ imports in a cycle, (d) no module is over 700 lines and no function over 60 (in
rules/ too; migrations aside: a longer function is split along its steps, each piece named for
what it does). And the write path passes what it needs: (e) no code hangs an attribute on a
model object or a function.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from django.conf import settings

from tests.support.imports import find_cycle, import_graph, module_files

ROOT = Path(settings.BASE_DIR)
TABLETOP = ROOT / "tabletop"
SYSTEMS = TABLETOP / "systems"
SYSTEM_SLUGS = sorted(p.name for p in SYSTEMS.iterdir() if (p / "__init__.py").exists())
MAX_LINES = 700
MAX_FUNCTION_LINES = 60


def _graph() -> dict[str, set[str]]:
    graph = import_graph(TABLETOP)
    return {name: deps for name, deps in graph.items() if ".migrations" not in name}


def _system_package(module: str) -> str | None:
    parts = module.split(".")
    if parts[:2] == ["tabletop", "systems"] and len(parts) > 2 and parts[2] in SYSTEM_SLUGS:
        return parts[2]
    return None  # generic code, the registry and its apps.py among it


def test_the_system_packages_are_found():
    assert SYSTEM_SLUGS == [
        "annulus",
        "any_game",
        "conductor",
        "percentile",
        "roll_and_keep",
        "two_dice",
    ]


def test_no_module_outside_the_systems_imports_a_system_package():
    graph = _graph()
    offenders = {
        name: sorted(dep for dep in deps if _system_package(dep))
        for name, deps in graph.items()
        if not _system_package(name) and any(_system_package(dep) for dep in deps)
    }
    assert offenders == {}, "generic code must ask the registry (tabletop.systems)"


def test_a_system_package_imports_no_other_system():
    graph = _graph()
    crossing = {
        name: sorted(d for d in deps if _system_package(d) not in (None, _system_package(name)))
        for name, deps in graph.items()
        if _system_package(name)
    }
    assert {name: deps for name, deps in crossing.items() if deps} == {}


def test_no_import_cycle_in_tabletop():
    assert find_cycle(_graph()) is None


def test_the_cycle_check_sees_a_cycle_through_a_function_level_import(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg import b\n")
    (package / "b.py").write_text("def later():\n    from pkg.a import x\n")
    assert find_cycle(import_graph(package)) == ["pkg.a", "pkg.b", "pkg.a"]


def test_no_module_is_over_700_lines():
    long = {
        name: n
        for name, path in module_files(TABLETOP).items()
        if ".migrations" not in name and (n := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}, f"split these by topic: {long}"


def _function_lengths(root: Path) -> dict[str, int]:
    """Lines of every function and method of the package at ``root``, from its ``def`` to its
    last line (decorators aside), by dotted name; migrations aside."""
    return {
        name: n
        for module, path in module_files(root).items()
        if ".migrations" not in module
        for name, n in _functions(ast.parse(path.read_text()), module)
    }


def _functions(node: ast.AST, prefix: str) -> Iterator[tuple[str, int]]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            name = f"{prefix}.{child.name}"
            if not isinstance(child, ast.ClassDef):
                yield name, (child.end_lineno or child.lineno) - child.lineno + 1
            yield from _functions(child, name)
        else:
            yield from _functions(child, prefix)


def test_no_function_is_over_60_lines():
    lengths = {**_function_lengths(TABLETOP), **_function_lengths(ROOT / "rules")}
    long = {name: n for name, n in lengths.items() if n > MAX_FUNCTION_LINES}
    assert long == {}, f"split these along their steps (read, ask rules/, record): {long}"


def test_the_function_ceiling_sees_a_long_method_and_a_nested_function(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    lines = "".join(f"        x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES))
    (package / "a.py").write_text(
        f"class A:\n    def long(self):\n{lines}\n\ndef outer():\n    def inner():\n{lines}"
    )
    assert _function_lengths(package) == {
        "pkg.a.A.long": MAX_FUNCTION_LINES + 1,
        "pkg.a.outer": MAX_FUNCTION_LINES + 2,
        "pkg.a.outer.inner": MAX_FUNCTION_LINES + 1,
    }


def test_generic_templates_name_no_system():
    slugs = "|".join(SYSTEM_SLUGS)
    # A slug in a path, a string or a dotted name: "systems/conductor/...", 'conductor_attack'.
    named = re.compile(rf"[\"'/]({slugs})(_[a-z0-9_]+)?[\"'/.]|(rules|systems)\.({slugs})\b")
    offenders = []
    for path in sorted((ROOT / "templates").rglob("*.html")):
        if path.relative_to(ROOT / "templates").parts[0] == "systems":
            continue
        if named.search(path.read_text()):
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def test_generic_python_names_no_system_in_its_code():
    slugs = set(SYSTEM_SLUGS)
    offenders = []
    for name, path in module_files(TABLETOP).items():
        if _system_package(name) or ".migrations" in name or name == "tabletop.settings":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                words = set(re.findall(r"[a-z_]+", node.value))
                if slugs & words and not _is_docstring(node, path):
                    offenders.append(f"{name}: {node.value[:60]!r}")
    assert offenders == [], "generic code must ask the registry, not name a system"


def _is_docstring(node: ast.Constant, path: Path) -> bool:
    # Prose may mention a system as an example; code may not depend on one.
    return "\n" in node.value or len(node.value) > 80


def test_each_system_is_a_django_app_of_its_own_listed_in_one_setting():
    from django.apps import apps
    from django.conf import settings

    from tabletop.systems.apps import SystemConfig

    assert sorted(m.rsplit(".", 1)[1] for m in settings.TABLETOP_SYSTEMS) == SYSTEM_SLUGS
    for slug in SYSTEM_SLUGS:
        config = apps.get_app_config(slug)
        assert isinstance(config, SystemConfig)
        assert config.name == f"tabletop.systems.{slug}"
        assert config.path == str(SYSTEMS / slug)


def test_a_system_s_static_files_live_in_its_app():
    from django.apps import apps
    from django.contrib.staticfiles import finders

    from tabletop import systems

    owned = {s.slug: (*s.stylesheets, *s.scripts) for s in systems.all_systems()}
    for slug, paths in owned.items():
        # The app the system is (its label is its slug): the five's under SYSTEMS, the
        # tests' sixth under tests/.
        static = Path(apps.get_app_config(slug).path) / "static"
        if slug in SYSTEM_SLUGS:
            assert static == SYSTEMS / slug / "static"
        for path in paths:
            assert path.startswith(f"systems/{slug}/"), path
            found = finders.find(path)
            assert found and found.startswith(str(static)), (path, found)
    # No system's files are left among the generic ones.
    generic = Path(__file__).resolve().parents[2] / "static"
    assert not (generic / "systems").exists()
    assert not list(generic.rglob("challenge.*"))


def _declared_currencies() -> set[str]:
    from tabletop import systems

    return {c.field for system in systems.all_systems() for c in system.currencies}


def test_character_holds_only_what_every_system_shares():
    """Each system's fields, currencies and harm are columns of its own sheet model (a subclass
    of Character in its app, one row per character): Character keeps the shared ones."""
    from django.db import models

    from tabletop import systems
    from tabletop.characters.models import Character

    shared = {f.name for f in Character._meta.concrete_fields}
    assert shared == {
        "id", "campaign", "owner", "role", "name", "notes", "created_at", "updated_at"
    }  # fmt: skip
    for system in systems.all_systems():
        model = system.sheet_model
        if model is None:
            assert not system.currencies, system.slug
            continue
        assert issubclass(model, Character) and model._meta.parents, system.slug
        assert model._meta.app_label == system.slug, "a system's sheet lives in its own app"
        own = {f.name: f for f in model._meta.local_concrete_fields}
        for currency in system.currencies:
            # A column the database keeps at zero or above: a spend can never overdraw.
            assert isinstance(own.get(currency.field), models.PositiveIntegerField), (
                system.slug,
                currency.field,
            )


def _declared_sheet_fields() -> set[str]:
    """Every field a system's sheet model adds to Character (and its currencies)."""
    from tabletop import systems
    from tabletop.characters.models import Character

    shared = {field.name for field in Character._meta.get_fields()}
    own = {
        field.name
        for system in systems.all_systems()
        for field in system.sheet_model._meta.local_fields
        if not field.remote_field or field.remote_field.model is not Character
    }
    return (own - shared) | _declared_currencies()


def test_generic_code_and_templates_name_no_field_or_currency_a_system_declares():
    """Generic code loops over what a system declares (its sheet parts, currencies, pools): it
    reads no field of a system's sheet model by name, in Python or in a template."""
    import io
    import tokenize

    declared = _declared_sheet_fields()
    # the check has something to find: currencies, harm and each shape of sheet field
    assert {"bennies", "plot_points", "hits", "luck"} <= declared
    assert {"attributes", "skills", "mana", "resources", "training_perks", "mv"} <= declared
    assert {"specialities", "difficulty", "quickness", "total_penalty", "favours"} <= declared
    root = Path(__file__).resolve().parents[2]
    offenders = []
    for path in sorted((root / "tabletop").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if _system_package(rel[:-3].replace("/", ".")) or "/migrations/" in rel:
            continue
        tokens = list(tokenize.generate_tokens(io.StringIO(path.read_text()).readline))
        for before, token in zip([None, *tokens], tokens, strict=False):
            named = (
                token.type == tokenize.STRING
                and token.string.strip("\"'") in declared
                or token.type == tokenize.NAME
                and token.string in declared
                and before is not None
                and before.string == "."
            )
            if named:
                offenders.append(f"{rel}:{token.start[0]} {token.string}")
    for path in sorted((root / "templates").rglob("*.html")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith("templates/systems/"):
            continue
        text = path.read_text()
        for field in declared:
            for match in re.finditer(rf"""(\.{field}\b|["']{field}["'])""", text):
                offenders.append(f"{rel}:{text.count(chr(10), 0, match.start()) + 1} {field}")
    assert offenders == [], "generic code must read what a system declares"


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring constants of a module, its classes and functions."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def test_generic_code_says_no_system_s_currency():
    """What a player reads of a currency (a refusal, a label) comes from the system's own
    declaration, in the campaign's words: generic code says no "bennies" or "plot points"."""
    from tabletop import systems

    said = {
        word
        for system in systems.all_systems()
        if system.slug in SYSTEM_SLUGS  # the product's (the tests' sixth may say "luck")
        for currency in system.currencies_in(system.effective_ruleset(None))
        for word in (currency.one, currency.many)
    }
    assert {"benny", "bennies", "plot points", "hits", "inspiration"} <= said
    spoken = re.compile(rf"\b({'|'.join(map(re.escape, sorted(said)))})\b", re.IGNORECASE)
    offenders = []
    for name, path in module_files(TABLETOP).items():
        if _system_package(name) or ".migrations" in name:
            continue
        tree = ast.parse(path.read_text())
        prose = _docstrings(tree)
        for node in ast.walk(tree):
            text = node.value if isinstance(node, ast.Constant) else None
            if isinstance(text, str) and id(node) not in prose and spoken.search(text):
                offenders.append(f"{name}:{node.lineno} {text[:60]!r}")
    assert offenders == [], "ask the system for its words (System.currencies_in)"


def test_a_system_uses_generic_code_only_through_the_plugin_api():
    """tabletop/systems/api.py is the whole surface a system may use: a system package imports
    the project's generic code from there alone (and ``rules/``, Django, the standard library)."""
    graph = _graph()
    # Its apps.py loads before any model: it subclasses SystemConfig from the registry's apps;
    # its models.py, loaded with the models, builds its sheet on tabletop.systems.models.
    allowed = {
        "tabletop.systems",
        "tabletop.systems.api",
        "tabletop.systems.apps",
        "tabletop.systems.models",
    }
    reaching = {
        name: sorted(
            dep
            for dep in deps
            if dep.startswith("tabletop")
            and dep not in allowed
            and _system_package(dep) != _system_package(name)
        )
        for name, deps in graph.items()
        if _system_package(name)
    }
    assert {name: deps for name, deps in reaching.items() if deps} == {}
    assert any(
        "tabletop.systems.api" in deps for name, deps in graph.items() if _system_package(name)
    )


def test_the_plugin_api_names_what_it_exports():
    from tabletop.systems import api

    missing = [name for name in api.__all__ if not hasattr(api, name)]
    assert missing == []
    for name in api.__all__:  # each one documented in the module's list of names
        assert f"``{name}``" in api.__doc__, name


def test_an_event_walks_forward_record_render_deliver():
    """Record (its row), render (what each viewer gets), deliver (to each audience): each step
    knows the ones after it, none the one before."""
    graph = _graph()
    record, render, deliver = (
        f"tabletop.scenes.{step}" for step in ("record", "render", "deliver")
    )
    assert deliver in graph[record] and render in graph[deliver]
    assert not {record, deliver} & graph[render]
    assert record not in graph[deliver]
    assert "tabletop.scenes.events" not in graph  # one module per step, not one for all


def test_the_die_tag_and_the_dice_stylesheet_say_no_system_s_words():
    """A die says what every die says (kept, dropped, exploded, raised); a d100's sign or a
    benny's raise is the system's to say (``System.read_die``, its own stylesheet)."""
    from tabletop import systems

    readers = {s.slug for s in systems.all_systems() if s.read_die is not None}
    assert {"conductor", "percentile"} <= readers
    words = ("benny", "bennies", "plot point", "rolls again", "subtracted", "chosen")
    keys = {"face", "chosen"}  # a stored d100's own fields
    tag = ROOT / "tabletop" / "scenes" / "templatetags" / "dice.py"
    said = [
        node.value
        for node in ast.walk(ast.parse(tag.read_text()))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and not _is_docstring(node, tag)
        and (node.value in keys or any(word in node.value for word in words))
    ]
    assert said == []
    css = (ROOT / "static" / "css" / "dice.css").read_text()
    assert [w for w in ("benny", "chosen", "subtracted") if w in css] == []


def _model_for(name: str) -> list[type]:
    """The model classes an object so named holds, by the names the write path gives them."""
    from tabletop import systems
    from tabletop.campaigns.models import Campaign
    from tabletop.characters.models import Character
    from tabletop.scenes.models import Scene, SceneEvent

    sheets = [Character, *(s.sheet_model for s in systems.all_systems() if s.sheet_model)]
    return {
        "scene": [Scene],
        "campaign": [Campaign],
        "event": [SceneEvent],
        "character": sheets,
        "sheet": sheets,
    }.get(name, [])


def _declares(models: list[type], attr: str) -> bool:
    return any(
        hasattr(model, attr) or attr in {f.attname for f in model._meta.concrete_fields}
        for model in models
    )


def _written_attributes(tree: ast.AST) -> list[ast.Attribute]:
    targets: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets += node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets.append(node.target)
    found = []
    while targets:
        target = targets.pop()
        if isinstance(target, ast.Tuple | ast.List):
            targets += target.elts
        elif isinstance(target, ast.Attribute):
            found.append(target)
    return found


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _in_scope(scope: ast.AST) -> list[ast.AST]:
    """The nodes of one scope (a module's or a function's body): a nested function, class or
    lambda is one of them, what is inside it is not."""
    found: list[ast.AST] = []
    todo = list(scope.body) if isinstance(scope, (ast.Module, *_DEFS)) else []
    while todo:
        node = todo.pop()
        found.append(node)
        if not isinstance(node, (*_DEFS, ast.ClassDef, ast.Lambda)):
            todo += ast.iter_child_nodes(node)
    return found


def _attributes_on_functions(tree: ast.Module) -> list[tuple[int, str]]:
    """``f.attr = ...`` where ``f`` is a function defined in the same scope (and not rebound)."""
    hung = []
    for scope in [tree, *(n for n in ast.walk(tree) if isinstance(n, _DEFS))]:
        nodes = _in_scope(scope)
        defined = {n.name for n in nodes if isinstance(n, _DEFS)}
        rebound = {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for node in nodes:
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                owner = node.value
                if isinstance(owner, ast.Name) and owner.id in defined - rebound:
                    hung.append((node.lineno, f"{owner.id}.{node.attr}"))
    return hung


def test_nothing_in_the_code_hangs_an_attribute_on_a_model_object_or_a_function():
    """What a path needs is passed to it or returned by it (tabletop/scenes/fastpath): no
    assignment to an attribute a scene, campaign, event or character's class does not declare
    (``scene.seen_by``, ``scene.campaign.member_read_with_scene``), no write into an object's
    ``__dict__`` (``event.__dict__.setdefault("_noted_sheets", ...)``), no attribute set on a
    function (``run.checks_scene``). tabletop/scenes/test_declared_attributes.py watches the
    objects themselves while commands run."""
    offenders = []
    for name, path in module_files(TABLETOP).items():
        if ".migrations" in name:
            continue
        tree = ast.parse(path.read_text())
        for line, hung in _attributes_on_functions(tree):
            offenders.append(f"{name}:{line} function {hung}")
        for target in _written_attributes(tree):
            owner = target.value
            held = owner.id if isinstance(owner, ast.Name) else getattr(owner, "attr", "")
            if target.attr == "__dict__" or held == "__dict__":
                offenders.append(f"{name}:{target.lineno} writes into __dict__")
            models = _model_for(held)
            if models and not _declares(models, target.attr):
                offenders.append(f"{name}:{target.lineno} {held}.{target.attr}")
        for node in ast.walk(tree):
            writes = ("setdefault", "update", "pop", "clear", "__setitem__")
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in writes
                and isinstance(node.func.value, ast.Attribute)
                and node.func.value.attr == "__dict__"
            ):
                offenders.append(f"{name}:{node.lineno} writes into __dict__")
    assert offenders == [], "\n".join(offenders)


def test_each_wire_command_is_named_as_its_action():
    """A command on the socket and the action it runs have one name (``"roll"`` runs
    ``actions.roll``): a reader of a frame finds its code by that name, a public one."""
    from tabletop.scenes.commands import COMMANDS

    assert {"roll", "reveal", "chat", "award", "benny", "luck", "contest_extended"} <= set(COMMANDS)
    differ = {
        name: command.action.__name__
        for name, command in COMMANDS.items()
        if command.action.__name__ != name
    }
    assert differ == {}
