"""The backup file: one gzip'd text of JSON lines, the same on SQLite and PostgreSQL.

Line by line: a header (``{"format": "tabletop-backup", "version": 1}``); for each model a
section line (``{"model": label, "columns": [...]}``) and its rows, one JSON array each, in
primary key order; the manifest (``{"manifest": {...}}``: when, the engine, the migrations
applied, row counts, every scene's ledger head and newest seq); last, ``{"sha256": ...}``, the
hash of every line before it. ``zcat FILE | tail -2`` shows the manifest and the checksum.

Values are JSON as they are, except those JSON has no type for, written as text their field
reads back exactly: times in ISO 8601 with microseconds, decimals and UUIDs as text, bytes in
base64, durations in ISO 8601.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import os
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from django.db.models import Field
from django.utils.duration import duration_iso_string

FORMAT = "tabletop-backup"
VERSION = 1
#: Fields whose values are written as text (see the module's docstring).
AS_TEXT = frozenset(
    {"DateTimeField", "DateField", "TimeField", "DecimalField", "UUIDField", "DurationField"}
)


class BackupError(ValueError):
    """A file that can't be restored: not a backup, truncated, altered (the message says)."""


def encode(field: Field, value: Any) -> Any:
    """``value`` of ``field`` as the file holds it."""
    if value is None:
        return None
    kind = field.get_internal_type()
    if kind == "BinaryField":
        return base64.b64encode(bytes(value)).decode("ascii")
    if kind == "DurationField":
        return duration_iso_string(value)
    if kind in AS_TEXT:
        return value.isoformat() if hasattr(value, "isoformat") else str(value)
    return value


def decode(field: Field, value: Any) -> Any:
    """The value ``field`` held, from the file's ``value``."""
    if value is None:
        return None
    kind = field.get_internal_type()
    if kind == "BinaryField":
        return base64.b64decode(value)
    if kind in AS_TEXT:
        return field.to_python(value)
    return value


def _line(value: Any) -> bytes:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return (text + "\n").encode("utf-8")


class Writer:
    """Writes a backup to ``path`` (mode 0600): under a temporary name until ``finish``, so a
    backup cut short never sits where a finished one would."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.partial = path.with_name(path.name + ".partial")
        fd = os.open(self.partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.fchmod(fd, 0o600)  # an older partial file kept its mode
        self.raw = os.fdopen(fd, "wb")
        self.zipped = gzip.GzipFile(fileobj=self.raw, mode="wb", mtime=0, compresslevel=6)
        self.hash = hashlib.sha256()
        self.write({"format": FORMAT, "version": VERSION})

    def write(self, value: Any) -> None:
        data = _line(value)
        self.hash.update(data)
        self.zipped.write(data)

    def finish(self) -> None:
        self.zipped.write(_line({"sha256": self.hash.hexdigest()}))
        self.zipped.close()
        self.raw.flush()
        os.fsync(self.raw.fileno())
        self.raw.close()
        os.replace(self.partial, self.path)

    def abandon(self) -> None:
        self.zipped.close()
        self.raw.close()
        self.partial.unlink(missing_ok=True)


def _lines(path: Path) -> Iterator[bytes]:
    try:
        with gzip.open(path, "rb") as zipped:
            yield from zipped
    except FileNotFoundError:
        raise BackupError(f"{path}: no such file.") from None
    except (gzip.BadGzipFile, zlib.error) as exc:
        raise BackupError(f"{path} is not a Tabletop backup, or it was altered ({exc}).") from None
    except EOFError:
        raise BackupError(f"{path} is truncated: the file ends before the backup does.") from None


def _parse(path: Path, data: bytes) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        raise BackupError(f"{path} was altered: a line is not JSON.") from None


def verified_manifest(path: Path) -> dict[str, Any]:
    """Read the whole file and check it; its manifest, or BackupError saying what is wrong.
    Nothing is written anywhere before this has passed."""
    digest = hashlib.sha256()
    previous: bytes | None = None
    before: bytes | None = None
    first = True
    for data in _lines(path):
        if first:
            header = _parse(path, data)
            if not isinstance(header, dict) or header.get("format") != FORMAT:
                raise BackupError(f"{path} is not a Tabletop backup.")
            if header.get("version") != VERSION:
                raise BackupError(
                    f"{path} is a backup of format {header.get('version')}; this code reads "
                    f"format {VERSION}."
                )
            first = False
        if previous is not None:
            digest.update(previous)
        before, previous = previous, data
    last = _parse(path, previous) if previous else None
    if not isinstance(last, dict) or "sha256" not in last:
        raise BackupError(f"{path} is truncated: its checksum line is missing.")
    if last["sha256"] != digest.hexdigest():
        raise BackupError(f"{path} was altered or damaged: its checksum does not match.")
    manifest = _parse(path, before) if before else None
    if not isinstance(manifest, dict) or "manifest" not in manifest:
        raise BackupError(f"{path} has no manifest.")
    return manifest["manifest"]


def sections(path: Path) -> Iterator[tuple[str, list[str], Iterator[list[Any]]]]:
    """Each model's (label, columns, rows) in file order (read after ``verified_manifest``).
    Each section's rows must be consumed before the next section is asked for."""
    lines = _lines(path)
    next(lines)  # the header
    pending = next(lines, None)
    while pending is not None:
        head = json.loads(pending)
        if "model" not in head:
            return  # the manifest: the sections are over
        current: list[bytes | None] = [None]

        def rows(current: list[bytes | None] = current) -> Iterator[list[Any]]:
            for data in lines:
                if not data.startswith(b"["):
                    current[0] = data
                    return
                yield json.loads(data)

        yield head["model"], head["columns"], rows()
        pending = current[0]
