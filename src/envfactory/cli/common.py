"""Shared CLI pieces: the console, error handling, and small renderers."""

from __future__ import annotations

import functools
import json
import os
import re
import sys
import time
from collections.abc import Callable
from typing import Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from envfactory.errors import EnvFactoryError

# Tables wrap badly at the 80 columns Rich assumes for pipes; keep them readable in logs.
_WIDTH = None if sys.stdout.isatty() or "COLUMNS" in os.environ else 140
console = Console(width=_WIDTH)
err_console = Console(stderr=True, width=_WIDTH)
F = TypeVar("F", bound=Callable[..., Any])


def friendly_errors(func: F) -> F:
    """Turn envfactory's own errors into one red line and exit code 2 (no traceback)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except EnvFactoryError as err:
            err_console.print(f"[bold red]error:[/] {escape(str(err))}", soft_wrap=True)
            raise typer.Exit(2) from None

    return wrapper  # type: ignore[return-value]


def progress_teller(update: Callable[[str], None], every: float = 5.0) -> Callable[[str], None]:
    """Where a long step says how far it is: ``update`` (a live progress line) on a terminal; else
    (a log file, a pipe) a plain line on stderr when the step moves to another phase, and at most
    one a ``every`` seconds within it — a run in the background shows where it is."""
    if err_console.is_terminal:
        return update
    said = {"phase": ""}
    at = [-every]

    def tell(message: str) -> None:
        now, phase = time.monotonic(), re.sub(r"[\d.]+", "", message)
        if phase != said["phase"] or now - at[0] >= every:
            err_console.print(escape(message), soft_wrap=True)
            said["phase"], at[0] = phase, now

    return tell


def escape(text: str) -> str:
    from rich.markup import escape as rich_escape

    return rich_escape(text)


def table(title: str, columns: list[str], rows: list[list[Any]]) -> Table:
    out = Table(title=title, title_justify="left", header_style="bold")
    for column in columns:
        out.add_column(column, overflow="fold")
    for row in rows:
        out.add_row(*(escape(str(c)) for c in row))
    return out


def short_json(value: Any, limit: int = 80) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"
