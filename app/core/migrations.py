"""Running Alembic from code: the only way the schema is created or changed."""

from __future__ import annotations

from alembic import command
from alembic.config import Config

from app.core.paths import ALEMBIC_INI, MIGRATIONS_DIR


def alembic_config(database_url: str) -> Config:
    """Returns an Alembic config for this project pointed at `database_url`."""
    config = Config(str(ALEMBIC_INI))
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return config


def upgrade(database_url: str, revision: str = "head") -> None:
    """Upgrades the schema at `database_url` to `revision`."""
    command.upgrade(alembic_config(database_url), revision)


def downgrade(database_url: str, revision: str = "base") -> None:
    """Downgrades the schema at `database_url` to `revision`."""
    command.downgrade(alembic_config(database_url), revision)
