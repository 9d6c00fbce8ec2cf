"""Links in chat: an http(s) address a member types becomes a link that opens apart from the
table (``rel="noopener nofollow"``); any other scheme stays text; everything stays escaped."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from asgiref.sync import sync_to_async
from django.urls import reverse

from tabletop.scenes.templatetags.chat import emphasis, said
from tests.tabletop.scenes.conftest import drain_all, seat_table


class Parsed(HTMLParser):
    """The tags of a piece of HTML, with their attributes, and its text."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text = ""
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text += data

    def links(self) -> list[dict[str, str | None]]:
        return [attrs for tag, attrs in self.tags if tag == "a"]


def hrefs(html: str) -> list[str | None]:
    return [link["href"] for link in Parsed(html).links()]


@pytest.mark.parametrize(
    ("text", "href"),
    [
        ("see https://example.com", "https://example.com"),
        ("see http://example.com/a?b=1&c=2 now", "http://example.com/a?b=1&c=2"),
        ("HTTPS://EXAMPLE.COM/Map", "HTTPS://EXAMPLE.COM/Map"),
        ("the map: https://example.com/map.", "https://example.com/map"),
        ("really? https://example.com/map?!", "https://example.com/map"),
        ("(see https://example.com/map)", "https://example.com/map"),
        (
            "https://en.wikipedia.org/wiki/Owlbear_(creature).",
            "https://en.wikipedia.org/wiki/Owlbear_(creature)",
        ),
        ('"https://example.com/a"', "https://example.com/a"),
        ("https://example.com/a,https://b.org", "https://example.com/a,https://b.org"),
        ("http://localhost:8000/scenes/1/", "http://localhost:8000/scenes/1/"),
    ],
)
def test_an_http_address_is_a_link_without_the_sentences_punctuation(text, href):
    html = str(emphasis(text))
    (link,) = Parsed(html).links()
    assert link["href"] == href
    assert link["rel"] == "noopener nofollow"
    assert link["target"] == "_blank"
    # The text reads as typed: nothing lost, nothing added.
    assert Parsed(html).text == text


@pytest.mark.parametrize(
    "text",
    [
        "javascript:alert(1)",
        "JaVaScRiPt:alert(document.cookie)",
        "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
        "vbscript:msgbox(1)",
        "ftp://example.com/file",
        "file:///etc/passwd",
        "javascript:https://example.com",
        "xhttps://example.com",
        "//example.com/no-scheme",
        "www.example.com",
        "http://",
        "https://.",
        "https://exa mple.com",
        "mailto:gm@example.com",
    ],
)
def test_no_other_scheme_and_no_broken_address_becomes_a_link(text):
    html = str(emphasis(text))
    assert Parsed(html).links() == []
    assert Parsed(html).text == text


@pytest.mark.parametrize(
    "text",
    [
        'https://example.com/"><script>alert(1)</script>',
        "https://example.com/'onmouseover='alert(1)",
        "https://example.com/<img src=x onerror=alert(1)>",
        'https://example.com/" onclick="alert(1)',
        "https://example.com/&quot;onclick=&quot;alert(1)",
        "https://example.com/\u0000\u202e<b>",
        "https://example.com/`x`",
    ],
)
def test_a_hostile_address_never_becomes_a_tag_or_an_attribute(text):
    html = str(emphasis(text))
    parsed = Parsed(html)
    assert [tag for tag, _ in parsed.tags] == ["a"]
    (link,) = parsed.links()
    assert set(link) == {"class", "href", "rel", "target"}
    assert link["href"].startswith("https://example.com/")
    assert "<" not in link["href"] and '"' not in link["href"]
    assert parsed.text == text


def test_a_typed_placeholder_cannot_stand_for_a_link():
    # The private-use characters that hold a link's place while the text is marked up.
    html = str(emphasis("\uf000 and \uf001 https://example.com"))
    assert hrefs(html) == ["https://example.com"]
    assert "\uf000" not in html and "\uf001" not in html


def test_emphasis_runs_around_a_link_and_never_inside_it():
    html = str(emphasis("*look at https://example.com/a*b*c*"))
    assert hrefs(html) == ["https://example.com/a*b*c"]
    assert html.startswith("<em>look at <a ")
    assert html.endswith("</a></em>")
    html = str(emphasis("**two** https://example.com/**x** and https://b.org/y"))
    assert hrefs(html) == ["https://example.com/**x", "https://b.org/y"]


def test_a_link_beside_an_inline_roll_keeps_both():
    text = "map https://example.com/m[[1d6]] then"
    assert text[25:32] == "[[1d6]]"
    roll = {"at": [25, 32], "total": 4, "result": {"breakdown": "1d6 (4) = 4"}}
    html = str(said({"text": text, "rolls": [roll]}))
    assert hrefs(html) == ["https://example.com/m"]
    assert 'class="inline-roll-total">4<' in html


def test_a_long_address_is_linked_whole():
    url = "https://example.com/" + "a" * 900
    assert hrefs(str(emphasis(f"{url} end"))) == [url]


# --- at the table -----------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_db_after")
async def test_lines_emotes_and_whispers_show_their_links_to_those_who_see_them(table):
    gm, alice, bob = await seat_table(table)
    await alice.send(
        command="chat", text="map: https://example.com/map?x=1&y=2. javascript:alert(1)"
    )
    await bob.send(command="chat", text="/me reads https://example.org/rules")
    await alice.send(command="chat", text="psst https://example.net/secret", to=[table.gm.pk])
    await drain_all(gm, alice, bob)
    for sock in (gm, alice, bob):
        page = sock.everything()
        assert "https://example.com/map?x=1&amp;y=2" in page
        links = hrefs(page)
        assert "https://example.com/map?x=1&y=2" in links
        assert "https://example.org/rules" in links
        assert not any(str(href).startswith("javascript") for href in links)
        assert ("https://example.net/secret" in links) == (sock is not bob)
    assert "example.net" not in bob.everything()
    for sock in (gm, alice, bob):
        await sock.close()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_db_after")
async def test_the_page_load_shows_the_link_and_the_ledger_export_keeps_it_text(table, client):
    gm, alice, bob = await seat_table(table)
    await alice.send(command="chat", text='see https://example.com/a"><b>x</b>')
    await drain_all(gm, alice, bob)
    for sock in (gm, alice, bob):
        await sock.close()

    def pages():
        client.force_login(table.bob)
        scene = client.get(reverse("scenes:detail", args=[table.scene.pk])).content.decode()
        ledger = client.get(reverse("scenes:ledger_html", args=[table.scene.pk])).content.decode()
        return scene, ledger

    scene, ledger = await sync_to_async(pages)()
    assert "https://example.com/a" in hrefs(scene)
    assert "<b>x</b>" not in scene
    # The export's entries are text its verifier compares with the data: no link, escaped.
    entries = ledger.split('<ol id="ledger-entries"', 1)[1].split("</ol>", 1)[0]
    assert hrefs(entries) == []
    assert "https://example.com/a&quot;&gt;&lt;b&gt;x&lt;/b&gt;" in entries
