"""The exception tree of envfactory.

    EnvFactoryError                 base; the CLI prints ``str(err)`` and exits non-zero
    ├── SpecError                   a tool description cannot be read (file, tool, field named)
    │   └── UnsupportedFormatError  no ingester recognises the input
    ├── SynthesisError              an environment cannot be built from a readable ToolSet
    ├── EnvSpecError                an environment directory is missing files or is inconsistent
    ├── SnapshotError               an episode snapshot is malformed or from another environment
    ├── TaskSetError                a task file is missing, malformed, or has no such index
    └── RegistryError               a duplicate or unknown name in a Registry

Errors raised *inside* an episode (bad arguments, unknown tools, missing rows) are not
exceptions: they are observations for the agent (see ``runtime.result``).
"""

from __future__ import annotations


class EnvFactoryError(Exception):
    """Base class for every error envfactory raises on purpose."""


class SpecError(EnvFactoryError):
    """A tool description is unreadable or invalid.

    The message always names the file and, when known, the tool and the field.
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        tool: str | None = None,
        field: str | None = None,
    ) -> None:
        self.file, self.tool, self.field = file, tool, field
        self.reason = message
        where = ", ".join(
            f"{label} {value!r}" for label, value in (("file", file), ("tool", tool), ("field", field)) if value
        )
        super().__init__(f"{where}: {message}" if where else message)


class UnsupportedFormatError(SpecError):
    """No ingester recognises the input."""


class SynthesisError(EnvFactoryError):
    """A readable ToolSet cannot be turned into an environment."""


class EnvSpecError(EnvFactoryError):
    """An environment directory cannot be loaded."""


class SnapshotError(EnvFactoryError, ValueError):
    """An episode snapshot cannot be restored; the episode is left unchanged."""


class TaskSetError(EnvFactoryError, IndexError):
    """A task file is missing or malformed, or an index is out of range."""


class RegistryError(EnvFactoryError, KeyError):
    """A name is registered twice, or looked up and not found."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""
