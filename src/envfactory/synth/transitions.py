"""State-changing verbs: which status each sets and which statuses allow it.

``TRANSITIONS[verb] = (targets, allowed_from)``: the first target present in the entity's
status enum is the new value; ``allowed_from`` (when given and present in the enum) lists the
only states the action may start from. Otherwise the action is refused from TERMINAL states.
"""

from __future__ import annotations

_PENDING = ("pending", "submitted", "requested", "draft", "placed", "open", "new")
TRANSITIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...] | None]] = {
    "cancel": (("cancelled", "canceled"), None),
    "approve": (("approved",), _PENDING),
    "reject": (("rejected", "declined"), _PENDING),
    "decline": (("declined", "rejected"), ("pending", "invited", "requested", "open", "tentative")),
    "accept": (("accepted", "confirmed"), ("pending", "invited", "requested", "open", "tentative")),
    "confirm": (("confirmed",), ("pending", "tentative", "requested", "held", "placed")),
    "close": (("closed",), None),
    "reopen": (("open", "reopened"), ("closed", "resolved", "done")),
    "archive": (("archived",), None),
    "unarchive": (("active", "open", "published", "draft"), ("archived",)),
    "complete": (("completed", "done", "complete"), None),
    "finish": (("finished", "completed", "done"), None),
    "resolve": (("resolved", "done", "closed"), None),
    "ship": (("shipped",), ("paid", "approved", "processing", "confirmed")),
    "deliver": (("delivered",), ("shipped", "in_transit")),
    "pay": (("paid",), ("pending", "unpaid", "open", "issued", "placed", "due", "overdue")),
    "refund": (("refunded",), ("paid", "completed", "delivered", "settled")),
    "return": (
        ("returned",),
        ("borrowed", "checked_out", "on_loan", "active", "out", "overdue", "delivered"),
    ),
    "activate": (("active", "activated", "enabled"), None),
    "deactivate": (("inactive", "deactivated", "disabled"), None),
    "enable": (("enabled", "active"), None),
    "disable": (("disabled", "inactive"), None),
    "suspend": (("suspended",), None),
    "freeze": (("frozen",), None),
    "unfreeze": (("active",), ("frozen",)),
    "block": (("blocked",), None),
    "unblock": (("active",), ("blocked",)),
    "publish": (("published", "live"), ("draft", "scheduled", "unpublished")),
    "unpublish": (("draft", "unpublished"), ("published", "live")),
    "lock": (("locked",), None),
    "unlock": (("unlocked", "active"), ("locked",)),
    "start": (("in_progress", "started", "active", "running"), None),
    "stop": (("stopped",), None),
    "pause": (("paused",), None),
    "resume": (("active", "running", "in_progress"), ("paused",)),
    "submit": (("submitted",), ("draft",)),
    "checkin": (("checked_in",), None),
    "checkout": (("checked_out",), None),
    "pin": (("pinned",), None),
    "unpin": (("active", "unpinned"), ("pinned",)),
    "expire": (("expired",), None),
}
TERMINAL = frozenset(
    {
        "cancelled",
        "canceled",
        "deleted",
        "closed",
        "completed",
        "done",
        "delivered",
        "refunded",
        "rejected",
        "declined",
        "archived",
        "returned",
        "expired",
        "failed",
        "finished",
        "checked_out",
    }
)
STATUS_FIELDS = ("status", "state", "stage", "phase")
# verbs that undo something not yet done, and the states (compared case-insensitively) in which it is done
UNDOING = frozenset({"cancel", "abort", "void", "revoke"})
FINISHED = ("completed", "complete", "done", "delivered", "finished", "fulfilled", "filled", "executed", "shipped",
            "refunded", "expired")  # fmt: skip


def transition_for(verb: str, enum: list[str] | None) -> tuple[str, tuple[str, ...] | None, tuple[str, ...]] | None:
    """``(to, allowed_from, forbidden_from)`` for ``verb`` on a status with values ``enum``.

    With no enum (a free-text status) the verb's first target is used, and nothing but a repeat
    (closing what is already closed) is refused: the status values are undeclared, so a state
    that forbids the action would be invented.
    """
    targets: tuple[str, ...]
    allowed: tuple[str, ...] | None
    if verb.startswith("mark_") and len(verb) > 5:
        targets, allowed = (verb[5:],), None
    elif verb in TRANSITIONS:
        targets, allowed = TRANSITIONS[verb]
    else:
        return None
    values = [str(v) for v in enum] if enum else []
    if values:  # matched whatever the enum's capitals (``Cancelled``), written as the enum spells it
        spelled: dict[str, str] = {}
        for v in values:
            spelled.setdefault(v.casefold(), v)
        present = [spelled[t] for t in targets if t in spelled]
        if not present:
            return None
        to = present[0]
        if allowed is not None:
            from_states = tuple(v for v in values if v.casefold() in allowed and v != to)
            if from_states:
                return to, from_states, ()
        return to, None, tuple(v for v in values if v.casefold() in TERMINAL and v != to)
    # a free-text status: which states refuse the action is unknown; only a repeat is refused, and
    # undoing what is already finished (cancelling a completed order) whatever its spelling
    return targets[0], None, FINISHED if verb in UNDOING else ()
