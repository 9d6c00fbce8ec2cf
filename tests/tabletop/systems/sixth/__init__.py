"""A sixth game system, "coin", an app of its own under tests/: its rules, its sheet model (a
character's luck, and the face it favours), its roll kind, card, events, procedure view, spends,
Sheet-tool rollable and stylesheet. Only the test settings (tests/settings.py) name it."""
