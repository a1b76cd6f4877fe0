# statusboard image: the app, its migrations, templates and static assets.
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /srv/statusboard
COPY pyproject.toml constraints.txt README.md ./
COPY app ./app
COPY migrations ./migrations
COPY templates ./templates
COPY static ./static
COPY alembic.ini ./
RUN pip install -c constraints.txt -e . && useradd --system --home /srv/statusboard statusboard
USER statusboard
EXPOSE 8000
CMD ["statusboard", "serve", "--host", "0.0.0.0", "--port", "8000", "--workers", "4"]
