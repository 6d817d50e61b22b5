"""Collects the warnings that ingestion and synthesis emit about what they normalized."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Diagnostics:
    """An append-only list of human-readable warnings with a location prefix.

    Each warning reads like ``file 'x.yaml', tool 'get_pet', field 'id': type 'int' -> 'integer'``
    so a user can find and fix the source.
    """

    file: str | None = None
    warnings: list[str] = field(default_factory=list)

    def warn(self, message: str, *, tool: str | None = None, field: str | None = None) -> None:
        where = ", ".join(
            f"{label} {value!r}" for label, value in (("file", self.file), ("tool", tool), ("field", field)) if value
        )
        self.warnings.append(f"{where}: {message}" if where else message)
