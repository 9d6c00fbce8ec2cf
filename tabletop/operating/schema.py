"""The database's schema as its applied migrations say: the models a backup is read and
written with. A backup made before an upgrade holds the columns of the migrations it was
made at, not the code's newest, so both sides use the historical models (as a data
migration does)."""

from __future__ import annotations

from django.apps.registry import Apps
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.recorder import MigrationRecorder
from django.db.models import Model

#: Tables a backup leaves out: logins (everyone logs in again after a restore), who is on a
#: scene right now, and the operator's own records of serving processes and backups. The
#: cache table is not a model and is left out with them.
LEFT_OUT = frozenset(
    {"sessions.session", "scenes.presence", "operating.servingprocess", "operating.backupmade"}
)
#: Rows ``migrate`` itself writes into a database with no data in it.
MADE_BY_MIGRATE = frozenset({"contenttypes.contenttype", "auth.permission"})

Migration = tuple[str, str]


def applied(connection: BaseDatabaseWrapper) -> list[Migration]:
    """The migrations applied to the database, sorted."""
    return sorted(MigrationRecorder(connection).applied_migrations())


def loader(connection: BaseDatabaseWrapper) -> MigrationLoader:
    return MigrationLoader(connection, ignore_no_migrations=True)


def unknown(connection: BaseDatabaseWrapper, migrations: list[Migration]) -> list[Migration]:
    """The migrations in ``migrations`` this code does not have."""
    nodes = loader(connection).graph.nodes
    return [m for m in migrations if tuple(m) not in nodes]


def apps_at(connection: BaseDatabaseWrapper, migrations: list[Migration]) -> Apps:
    """The models as they were after ``migrations``."""
    found = loader(connection)
    nodes = [tuple(m) for m in migrations if tuple(m) in found.graph.nodes]
    return found.project_state(nodes, at_end=True).apps


def table_ready(connection: BaseDatabaseWrapper, model: type[Model]) -> bool:
    """Does the database have ``model``'s table with every column it writes (its migration
    applied: not a table of that name made otherwise)?"""
    with connection.cursor() as cursor:
        if model._meta.db_table not in connection.introspection.table_names(cursor):
            return False
        described = connection.introspection.get_table_description(cursor, model._meta.db_table)
    return {f.column for f in model._meta.local_concrete_fields} <= {c.name for c in described}


def kept_models(apps: Apps) -> list[type[Model]]:
    """The models a backup holds, in a fixed order (by label)."""
    models = [
        model
        for model in apps.get_models(include_auto_created=True)
        if model._meta.managed and not model._meta.proxy and model._meta.label_lower not in LEFT_OUT
    ]
    return sorted(models, key=lambda model: model._meta.label_lower)


def skipped_tables(apps: Apps) -> set[str]:
    """Tables whose rows don't make a database hold data (left out, or written by migrate)."""
    names = {"django_migrations"}
    for model in apps.get_models(include_auto_created=True):
        if model._meta.label_lower in LEFT_OUT | MADE_BY_MIGRATE:
            names.add(model._meta.db_table)
    return names
