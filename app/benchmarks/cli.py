"""`statusboard upload FILE…`: send benchmark results to a statusboard server over HTTP."""

from __future__ import annotations

import os
from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    """Adds the `upload` command."""
    app.command("upload")(upload)


def _pairs(values: list[str] | None, option: str) -> list[str]:
    from app.cli import fail

    for value in values or []:
        if "=" not in value:
            fail(f"{option} expects KEY=VALUE, got {value!r}")
    return values or []


def upload(
    files: list[Path] = typer.Argument(
        ..., help="Result files: JSON, JSON lines, console text, lm-eval table."
    ),
    server: str = typer.Option(
        "http://127.0.0.1:8000", envvar="STATUSBOARD_SERVER", help="Base URL of the statusboard server."
    ),
    token: str | None = typer.Option(
        None, envvar="STATUSBOARD_TOKEN", help="API token with scope upload (or env STATUSBOARD_TOKEN)."
    ),
    hardware: str | None = typer.Option(None, help="GPU model, e.g. B200, GB200, RTX PRO 6000."),
    gpu_count: int | None = typer.Option(None, min=0, help="Number of GPUs."),
    model: str | None = typer.Option(None, help="Model id; defaults to the one the file names."),
    precision: str | None = typer.Option(None, help="fp4, fp8, bf16, …"),
    engine: str | None = typer.Option(None, help="Engine name (default vllm)."),
    engine_version: str | None = typer.Option(None, help="Engine version, e.g. 0.19.0."),
    engine_commit: str | None = typer.Option(None, help="Engine git commit."),
    label: str | None = typer.Option(None, help="A label for the run, e.g. before / after."),
    backend: list[str] | None = typer.Option(None, help="COMPONENT=BACKEND, repeatable (moe=MARLIN)."),
    env: list[str] | None = typer.Option(None, help="KEY=VALUE environment variable, repeatable."),
    tag: list[str] | None = typer.Option(None, help="KEY=VALUE tag, repeatable."),
    link: list[str] | None = typer.Option(
        None, help="Linked PR/issue (#123, owner/repo#123, URL), repeatable."
    ),
    flags: str | None = typer.Option(None, help='Server CLI flags, e.g. "--kv-cache-dtype fp8".'),
    tp: int | None = typer.Option(None, min=0, help="Tensor parallel size."),
    dp: int | None = typer.Option(None, min=0, help="Data parallel size."),
    ep: int | None = typer.Option(None, min=0, help="Expert parallel size."),
    pp: int | None = typer.Option(None, min=0, help="Pipeline parallel size."),
    dp_attention: bool | None = typer.Option(None, "--dp-attention/--no-dp-attention", help="DP attention."),
    dataset: str | None = typer.Option(None, help="Workload dataset, e.g. random, sharegpt."),
    input_len: int | None = typer.Option(None, min=0, help="Input length (ISL)."),
    output_len: int | None = typer.Option(None, min=0, help="Output length (OSL)."),
    concurrency: int | None = typer.Option(None, min=0, help="Maximum concurrency."),
    num_prompts: int | None = typer.Option(None, min=0, help="Number of prompts."),
    request_rate: str | None = typer.Option(None, help="Request rate (req/s) or inf."),
    run_format: str | None = typer.Option(None, "--format", help="Name the format instead of detecting it."),
    retries: int = typer.Option(3, min=0, help="Retries on connection errors and 5xx answers."),
    timeout: float = typer.Option(60.0, min=1, help="Seconds to wait for each answer."),
) -> None:
    """Upload benchmark result files; prints created / duplicate / failed per file, exits 1 if any failed."""
    import httpx

    from app.benchmarks.uploader import context_parameters
    from app.cli import fail

    if not token:
        fail("no token: pass --token or set STATUSBOARD_TOKEN (a token with scope upload)")
    params = context_parameters(
        hardware=hardware,
        gpu_count=gpu_count,
        model=model,
        precision=precision,
        engine=engine,
        engine_version=engine_version,
        engine_commit=engine_commit,
        label=label,
        backends=_pairs(backend, "--backend"),
        env=_pairs(env, "--env"),
        tags=_pairs(tag, "--tag"),
        links=link,
        flags=flags,
        parallelism={"tp": tp, "dp": dp, "ep": ep, "pp": pp, "dp_attention": dp_attention},
        workload={
            "dataset": dataset,
            "input_len": input_len,
            "output_len": output_len,
            "concurrency": concurrency,
            "num_prompts": num_prompts,
            "request_rate": request_rate,
        },
        run_format=run_format,
    )
    headers = {"Authorization": f"Bearer {token}", "User-Agent": "statusboard-upload"}
    with httpx.Client(base_url=server.rstrip("/"), headers=headers, timeout=timeout) as client:
        failed = run_uploads(client=client, files=files, params=params, retries=retries)
    raise typer.Exit(1 if failed else 0)


def run_uploads(
    *, client, files: list[Path], params: list[tuple[str, str]], retries: int, backoff: float = 0.5
) -> bool:
    """Uploads every file with a progress bar, prints the summary table; returns whether any failed."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
    from rich.table import Table

    from app.benchmarks.uploader import upload_file

    console = Console(stderr=False, width=int(os.environ.get("COLUMNS", "120")))
    outcomes = []
    progress = Progress(
        TextColumn("uploading"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
        console=console, transient=True, disable=len(files) < 2,
    )  # fmt: skip
    with progress:
        task = progress.add_task("", total=len(files))
        for path in files:
            progress.update(task, description=path.name)
            outcomes.append(
                upload_file(client=client, path=path, params=params, retries=retries, backoff_seconds=backoff)
            )
            progress.advance(task)
    table = Table(title="statusboard upload")
    for column in ("file", "created", "duplicate", "failed", "runs / error"):
        table.add_column(column)
    for outcome in outcomes:
        runs = ", ".join(f"#{run['id']}" for run in outcome.created + outcome.duplicates)
        detail = "; ".join(outcome.errors) or runs
        table.add_row(
            outcome.path,
            str(len(outcome.created)),
            str(len(outcome.duplicates)),
            str(len(outcome.errors)),
            detail,
        )
    console.print(table)
    created = sum(len(outcome.created) for outcome in outcomes)
    duplicates = sum(len(outcome.duplicates) for outcome in outcomes)
    failures = sum(len(outcome.errors) for outcome in outcomes)
    console.print(f"{created} created, {duplicates} duplicate, {failures} failed")
    return failures > 0
