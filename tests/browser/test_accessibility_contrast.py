"""Contrast, measured from the colours Chromium computes (issue 47, WCAG 1.4.3 and 1.4.11): on
the live scene pages (a player's and the GM's, with dice of every state on their cards) and the
dice reference, text meets 4.5:1 (3:1 when large) and focus rings, dice faces and the roll
mode's badge 3:1 against what is behind them. The page keeps its light theme when the system
asks for a dark one (base.html: data-theme="light"), so both are measured.

A colour is read by painting it on a canvas (whatever notation getComputedStyle gives), and a
background is the stack of every ancestor's background colour, blended, over the page's white.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from tests.browser.site_pages import PAGES, SitePage, Visitors, open_site_page, site_data

CHECKED = ("scene-player-conductor", "scene-gm-conductor", "dice-reference-player")
SCHEMES = ("light", "dark")

MEASURE = """() => {
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 1;
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  function rgba(color) {
    ctx.clearRect(0, 0, 1, 1);
    ctx.fillStyle = '#000';
    ctx.fillStyle = color;
    ctx.fillRect(0, 0, 1, 1);
    const d = ctx.getImageData(0, 0, 1, 1).data;
    return [d[0], d[1], d[2], d[3] / 255];
  }
  function over(top, under) {
    const a = top[3];
    return [0, 1, 2].map(i => top[i] * a + under[i] * (1 - a)).concat([1]);
  }
  function opacity(el) {
    let o = 1;
    for (let e = el; e; e = e.parentElement) { o *= parseFloat(getComputedStyle(e).opacity); }
    return o;
  }
  function background(el) {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c[3] > 0) { layers.push(c); }
      if (c[3] >= 1) { break; }
    }
    let bg = [255, 255, 255, 1];
    for (const c of layers.reverse()) { bg = over(c, bg); }
    return bg;
  }
  function lum(c) {
    const f = v => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  }
  function ratio(a, b) {
    const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  }
  window.__contrast = { rgba: rgba, over: over, background: background, ratio: ratio };
  function name(el) {
    return el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
      [...el.classList].slice(0, 3).map(c => '.' + c).join('');
  }
  function shown(el) {
    if (!el.checkVisibility({ checkOpacity: true, visibilityProperty: true })) { return false; }
    const r = el.getBoundingClientRect();
    if (r.width <= 2 || r.height <= 2 || r.right < 0 || r.bottom < 0) { return false; }
    return !el.closest('.visually-hidden, [hidden]');
  }
  const failures = [];
  let measured = { text: 0, die: 0, badge: 0, focus: 0 };
  function check(kind, el, fg, bg, least) {
    const r = ratio(fg, bg);
    measured[kind] += 1;
    if (r + 0.005 < least) {
      failures.push(`${kind} ${name(el)} "${(el.textContent || '').trim().slice(0, 30)}": ` +
        `${r.toFixed(2)}:1 < ${least}:1 (rgb(${fg.slice(0, 3).map(Math.round)}) on ` +
        `rgb(${bg.slice(0, 3).map(Math.round)}))`);
    }
  }
  // Text: every element with words of its own, and every field's value.
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const seen = new Set();
  let t;
  while ((t = walk.nextNode())) {
    const el = t.parentElement;
    if (!t.textContent.trim() || !el || seen.has(el)) { continue; }
    seen.add(el);
    const exempt = ':disabled, [aria-disabled="true"], option, script, style';
    if (!shown(el) || el.closest(exempt)) { continue; }
    const s = getComputedStyle(el);
    const size = parseFloat(s.fontSize);
    const large = size >= 24 || (size >= 18.66 && parseInt(s.fontWeight, 10) >= 700);
    const bg = background(el);
    const fg = rgba(s.color);
    fg[3] *= opacity(el);
    check('text', el, over(fg, bg), bg, large ? 3 : 4.5);
  }
  const fields = 'input:not([type=hidden], [type=checkbox], [type=radio]), select, textarea';
  for (const el of document.querySelectorAll(fields)) {
    if (!shown(el) || el.disabled) { continue; }
    const bg = background(el);
    if (el.value) { check('text', el, over(rgba(getComputedStyle(el).color), bg), bg, 4.5); }
    if (el.placeholder && !el.value) {
      check('text', el, over(rgba(getComputedStyle(el, '::placeholder').color), bg), bg, 4.5);
    }
  }
  // Dice faces: the die's outline against the card, and its number against the die's paper.
  for (const die of document.querySelectorAll('.die')) {
    const outline = die.querySelector('.die-outline');
    const num = die.querySelector('.die-num');
    if (!outline || !shown(die)) { continue; }
    const s = getComputedStyle(outline);
    const card = background(die);
    const paper = over(rgba(s.fill), card);
    const edge = rgba(s.stroke);
    edge[3] *= opacity(outline);
    check('die', outline, over(edge, card), card, 3);
    if (num) { check('die', num, over(rgba(getComputedStyle(num).color), paper), paper, 4.5); }
  }
  // The roll mode's badge and the outcome's: their edge or their fill against the card.
  for (const badge of document.querySelectorAll('.badge, .outcome-badge, .compare-outcome')) {
    if (!shown(badge)) { continue; }
    const s = getComputedStyle(badge);
    const card = background(badge.parentElement);
    const fill = over(rgba(s.backgroundColor), card);
    const edge = over(rgba(s.borderTopColor), card);
    const bordered = parseFloat(s.borderTopWidth) > 0 && s.borderTopStyle !== 'none';
    const best = Math.max(ratio(fill, card), bordered ? ratio(edge, card) : 0);
    check('badge', badge, best === ratio(fill, card) ? fill : edge, card, 3);
  }
  return { failures: failures, measured: measured };
}"""

# The focus indicator of the focused element: its outline, else its border (Pico marks a
# focused field by its border), against what is behind it (MEASURE's helpers).
FOCUS = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) { return null; }
  const s = getComputedStyle(el);
  const { rgba, over, background, ratio } = window.__contrast;
  const behind = background(el.parentElement || el);
  const ratios = [];
  if (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2) {
    ratios.push(ratio(over(rgba(s.outlineColor), behind), behind));
  }
  if (parseFloat(s.borderTopWidth) >= 1 && s.borderTopStyle !== 'none') {
    ratios.push(ratio(over(rgba(s.borderTopColor), behind), behind));
  }
  return {
    name: el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
      ' "' + (el.textContent || el.name || '').trim().slice(0, 25) + '"',
    best: ratios.length ? Math.max(...ratios) : 0,
    outline: s.outlineColor + ' ' + s.outlineStyle + ' ' + s.outlineWidth,
    border: s.borderTopColor,
  };
}"""


@pytest.fixture(scope="module")
def visitors(browser: Browser, server) -> Iterator[Visitors]:
    site_data(server)
    visitors = Visitors(browser, server)
    yield visitors
    visitors.close()


def site_page(page_id: str) -> SitePage:
    return next(p for p in PAGES if p.id == page_id)


def roll_dice_of_every_state(server, data) -> None:
    """Cards on the conductor scene with kept, dropped, exploded and plain dice."""
    scene = data["systems"]["conductor"]["scene"]
    server.shell(
        "from tabletop.scenes import actions\n"
        "from tabletop.scenes.models import Scene\n"
        f"scene = Scene.objects.select_related('campaign').get(pk={scene})\n"
        "for text in ('4d6kh3', '6d6!', '2d20kl1 + 3', '3d8 >= 5'):\n"
        "    actions.roll(scene=scene, actor=scene.campaign.gm, roll_kind='expression',"
        " data={'expression': text})\n"
    )


def focus_contrast(page: Page, presses: int = 40) -> list[str]:
    """Tab through the page's first controls: each one's ring, 3:1 against the page."""
    failures = []
    for _ in range(presses):
        page.keyboard.press("Tab")
        found = page.evaluate(FOCUS)
        if found is not None and found["best"] + 0.005 < 3:
            failures.append(
                f"focus on {found['name']}: {found['best']:.2f}:1 (outline {found['outline']},"
                f" border {found['border']})"
            )
    return failures


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("page_id", CHECKED)
def test_text_focus_rings_dice_and_badges_meet_their_contrast(
    visitors: Visitors, server, page_id: str, scheme: str
):
    data = site_data(server)
    if page_id.startswith("scene"):
        roll_dice_of_every_state(server, data)
    which = site_page(page_id)
    page = visitors.page_for(which.user)
    page.emulate_media(color_scheme=scheme, reduced_motion="reduce")
    open_site_page(visitors, which, data)
    found = page.evaluate(MEASURE)
    measured = found["measured"]
    assert measured["text"] > 20, measured
    if page_id.startswith("scene"):
        assert measured["die"] > 3 and measured["badge"] >= 1, measured
    failures = found["failures"] + focus_contrast(page)
    assert not failures, f"{page_id} ({scheme}):\n" + "\n".join(failures)
