"""A game system's own stylesheets and scripts (its app's static folder) load on the scene page
of its campaigns, after the generic ones, and on no other system's."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from tabletop import systems
from tests.support.tables import make_table

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("slug", [s.slug for s in systems.all_systems()])
def test_the_scene_page_loads_its_system_s_files_and_no_other_s(slug):
    table = make_table(system=slug)
    client = Client()
    client.force_login(table.alice)
    page = client.get(reverse("scenes:detail", args=[table.scene.pk])).content.decode()
    loaded = re.findall(r'(?:href|src)="/static/(systems/[^"]+)"', page)
    mine = systems.get(slug)
    assert loaded == [*mine.stylesheets, *mine.scripts]
    # After the generic files, so a system's rules win where they meet.
    if loaded:
        assert page.index(loaded[0]) > page.index("js/scene.js")
