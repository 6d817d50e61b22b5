"""What synthesis chose for each tool, among which candidates, on what evidence; and learned answers.

A *candidate* is a behaviour a proposer put forward for a tool (with the schema change it implies,
if any). The chooser keeps one per tool and records it as a :class:`Choice`: the chosen candidate,
the runners-up with their scores, and the evidence the scores rest on (``descriptions`` when no
real implementation was consulted), so a later measurement can overturn a choice.

An :class:`Answer` is how a tool's reply is worded where the real implementation was seen to word
it so: a text template whose slots are filled from the call's arguments and the tool's own answer
(``"Created task {out.id}: {arg.title}"``), or replies recorded by arguments for tools whose
answers did not depend on the state (reference data).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Evidence = Literal["descriptions", "real", "traces"]


class Answer(BaseModel):
    """A learned wording of a tool's reply, applied after its effect ran (see the module docstring)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["template", "recorded"]
    # for ``template``: the reply as JSON (or text) whose strings hold ``{arg.NAME}`` and ``{out.PATH}``
    # slots; a string that is one slot alone takes the slot's value with its type
    template: Any = ""
    recorded: dict[str, Any] = Field(default_factory=dict)  # for ``recorded``: canonical arguments -> reply
    defaults: dict[str, Any] = Field(default_factory=dict)  # declared defaults of arguments a call may omit


class ArgCheck(BaseModel):
    """A check the real implementation was seen making: argument ``arg``, when given, must have one of
    the ``shapes`` its accepted values had (:func:`envfactory.runtime.answers.shape_of`) — or, with
    ``values``, be one of those values (as :func:`envfactory.runtime.answers.token` writes them: a
    stage ``leads`` accepted, any other word refused) —, else the call is refused with ``message``.
    With ``refused``, for an argument the real side never accepted, ``shapes`` is not consulted: a value
    of one of the ``refused`` shapes is refused (``limit: 34.65`` refused on every call given it, whole
    numbers never tried), any other passes. With ``stated``, what the real side's refusals said the
    argument must be, as JSON-schema keywords (``{"minLength": 20}``, ``{"pattern": "\\.(md|base)$"}``:
    :mod:`envfactory.real.told`), a value that does not meet them is refused, and shapes are not consulted."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    arg: str
    shapes: tuple[str, ...]
    message: str
    values: tuple[str, ...] = ()
    refused: tuple[str, ...] = ()
    stated: dict[str, Any] = {}


class Scored(BaseModel):
    """One candidate's standing: who proposed it, what it is, and how it scored."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    proposer: str
    summary: str  # the behaviour in words: "create on task", "answers a learned template"
    score: float | None = None  # agreement on the evidence (None: not scored, no evidence)
    calls: int = 0  # how many evidence calls the score rests on


class Choice(BaseModel):
    """The chosen candidate of one tool, its runners-up and the evidence."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tool: str
    chosen: Scored
    runners_up: tuple[Scored, ...] = ()
    evidence: Evidence = "descriptions"
    flagged: str | None = None  # why no candidate explains what was seen, if none does


__all__ = ["Answer", "ArgCheck", "Choice", "Evidence", "Scored"]
