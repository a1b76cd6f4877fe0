"""docker-compose.yml defines db, migrate, web and the sync worker, and Compose accepts it."""

import shutil
import subprocess

import pytest
import yaml

from app.core.paths import PROJECT_ROOT

COMPOSE_FILE = PROJECT_ROOT / "docker-compose.yml"


def test_compose_file_has_the_services_the_deployment_needs():
    compose = yaml.safe_load(COMPOSE_FILE.read_text())
    services = compose["services"]
    assert {"db", "migrate", "web", "sync"} <= set(services)
    assert services["db"]["image"].startswith("postgres:16")
    assert "healthcheck" in services["db"]
    assert (
        "statusboard" in " ".join(services["migrate"]["command"])
        and "migrate" in services["migrate"]["command"]
    )
    assert services["web"]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert "--workers" in services["web"]["command"]
    assert any(volume.startswith("pgdata:") for volume in services["db"]["volumes"])


def test_docker_compose_config_validates_the_file():
    if shutil.which("docker-compose"):
        command = ["docker-compose", "-f", str(COMPOSE_FILE), "config", "-q"]
    elif (
        shutil.which("docker")
        and subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0
    ):
        command = ["docker", "compose", "-f", str(COMPOSE_FILE), "config", "-q"]
    else:
        pytest.skip("neither docker-compose nor the docker compose plugin is installed")
    env = {
        "SECRET_KEY": "a-secret-key-for-config-validation",
        "POSTGRES_PASSWORD": "pw",
        "PATH": "/usr/bin:/bin",
    }
    result = subprocess.run(command, cwd=PROJECT_ROOT, capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 0, result.stderr
