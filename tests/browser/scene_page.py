"""Helpers for the live scene page: its tool tabs (Roll, Party, In play, GM; Log on a phone)."""

from __future__ import annotations

from playwright.sync_api import Page, expect


def show_tab(page: Page, name: str) -> None:
    """Bring a tool tab forward, as a player taps it (the page remembers it across reloads)."""
    tab = page.get_by_role("tab", name=name, exact=True)
    tab.click()
    expect(tab).to_have_attribute("aria-selected", "true")
