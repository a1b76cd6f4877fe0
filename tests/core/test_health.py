"""/healthz answers 200 with the database up, 503 while it is down, and recovers by itself."""

from fastapi.testclient import TestClient

from app.main import create_app
from tests.conftest import make_settings
from tests.tcp_proxy import TcpProxy


def test_healthz_reports_ok(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok"}


def test_healthz_is_503_while_the_database_is_down_and_recovers(pg_server, database_url):
    with TcpProxy.to_database(database_url) as proxy:
        app = create_app(make_settings(proxy.database_url(database_url)))
        with TestClient(app) as client:
            assert client.get("/healthz").status_code == 200
            proxy.cut()
            down = client.get("/healthz")
            assert down.status_code == 503
            assert down.json()["database"] == "unavailable"
            proxy.restore()
            assert client.get("/healthz").json() == {"status": "ok", "database": "ok"}


def test_a_page_while_the_database_is_down_is_a_503_page_not_a_stack_trace(database_url):
    with TcpProxy.to_database(database_url) as proxy:
        app = create_app(make_settings(proxy.database_url(database_url)))
        with TestClient(app, raise_server_exceptions=False) as client:
            proxy.cut()
            response = client.get("/", headers={"Accept": "text/html", "Authorization": "Bearer sb_x"})
            assert response.status_code == 503
            assert "Temporarily unavailable" in response.text
            api = client.get("/api/v1/tokens/me", headers={"Authorization": "Bearer sb_x"})
            assert api.status_code == 503
            assert api.json()["error"]["code"] == "service_unavailable"
