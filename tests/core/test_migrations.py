"""The schema comes only from Alembic: upgrade on an empty database, no drift, clean downgrade."""

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, inspect

from app.core import migrations
from app.core.models import import_all_models


def test_upgrade_head_then_autogenerate_finds_no_difference_then_downgrade_to_base(scratch_database):
    url = scratch_database("migrations")
    migrations.upgrade(url)
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={"compare_type": True})
            differences = compare_metadata(context, import_all_models())
            assert differences == [], f"models and migrations disagree: {differences}"
        migrations.downgrade(url, "base")
        with engine.connect() as connection:
            assert set(inspect(connection).get_table_names()) <= {"alembic_version"}
        migrations.upgrade(url)
    finally:
        engine.dispose()


def test_migrations_form_one_line_with_date_slug_file_names():
    script = ScriptDirectory.from_config(migrations.alembic_config("postgresql+psycopg://x@/y"))
    assert len(script.get_heads()) == 1, "migrations must not branch"
    for revision in script.walk_revisions():
        name = revision.path.rsplit("/", 1)[-1]
        assert name[:4].isdigit() and name[4] == "_" and name[7] == "_" and name[10] == "_", name
