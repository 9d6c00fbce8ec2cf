"""POST data builders for the sheet form (field names as forms.py makes them)."""

from __future__ import annotations

from typing import Any


def rows(prefix: str, items: list[dict[str, Any]], *, initial: int = 0) -> dict[str, Any]:
    """A formset's management form plus its rows."""
    data: dict[str, Any] = {
        f"{prefix}-TOTAL_FORMS": str(max(len(items), initial)),
        f"{prefix}-INITIAL_FORMS": str(initial),
        f"{prefix}-MIN_NUM_FORMS": "0",
        f"{prefix}-MAX_NUM_FORMS": "1000",
    }
    for index, item in enumerate(items):
        for key, value in item.items():
            data[f"{prefix}-{index}-{key}"] = value
    return data


def roll_and_keep_data(**overrides: Any) -> dict[str, Any]:
    # attributes in ruleset order: Cunning, Intelligence, Strength, Endurance, Charisma, ...
    # colours: White, Blue, Black, Red, Green
    data: dict[str, Any] = {"name": "Sable", "notes": ""}
    data.update({f"attr_{i}": v for i, v in enumerate([4, 3, 2, 3, 2, 3, 2])})
    data.update({f"mana_{i}": v for i, v in enumerate([0, 2, 3, 0, 0])})
    data.update(
        rows(
            "specialities",
            [
                {"name": "Deceit", "attribute": "Cunning"},
                {"name": "Artifice", "attribute": "Intelligence"},
            ],
        )
    )
    data.update(overrides)
    return data


def conductor_data(skills: list[dict[str, Any]] | None = None, **overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"name": "Kestrel", "notes": "", "difficulty": "3"}
    if skills is None:
        skills = [
            {"name": "Weapon", "specialisation": "Sword", "value": "2"},
            {"name": "Survival", "specialisation": "", "value": "1"},
        ]
    data.update(rows("skills", skills))
    data.update(overrides)
    return data


def percentile_data(**overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "Tomalfson",
        "notes": "",
        "quickness": "-9",
        "mv": "26",
        "total_penalty": "-65",
    }
    data.update(rows("skills", [{"name": "Broadsword", "value": "55"}]))
    data.update(rows("stats", [{"name": "Perceptivity", "value": "5"}]))
    data.update(overrides)
    return data
