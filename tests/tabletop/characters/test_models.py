"""The character model's own rules: the order the table lists characters in."""

from tabletop.characters.models import Character


def test_the_table_lists_pcs_then_npcs_then_foes_each_by_name():
    # One order for every roster and picker (the Sheet tool, the turn tracker, maneuvers).
    people = [
        Character(pk=1, name="wolf", role=Character.Role.FOE),
        Character(pk=2, name="Zed", role=Character.Role.PC),
        Character(pk=3, name="Old Hanna", role=Character.Role.NPC),
        Character(pk=4, name="ada", role=Character.Role.PC),
        Character(pk=5, name="Bog Wight", role=Character.Role.FOE),
    ]
    assert [c.name for c in Character.in_table_order(people)] == [
        "ada",
        "Zed",
        "Old Hanna",
        "Bog Wight",
        "wolf",
    ]
