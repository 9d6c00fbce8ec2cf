"""Keeping a site safe: backups, restores, upgrades, and the processes that serve it.

``backupfile`` writes and reads the backup file, ``snapshot`` takes a consistent copy of the
database to dump, ``restoring`` puts a backup back, ``serving`` knows which processes serve
from the database (and closes their sockets with 1012 when told to stop).
"""
