"""The records the real thing starts with, as fresh reads show them."""

from __future__ import annotations

from envfactory.ir.env import EnvSpec
from envfactory.real.keypool import MINTED, matched_records
from envfactory.synth.candidates import JSON, PROPOSERS, Candidate, Evidence
from envfactory.synth.proposers.shapes import list_reads, records_in, schema_of


@PROPOSERS.register("start-rows")
def start_rows(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """The records the real thing starts with, as it answers them: a list read before any write of
    its sequence shows the starting records, matched to the model's by what neither side minted (a title,
    a name); the fields they hold that the model's records lack or hold otherwise (a null included)
    are added to its starting records (``completed: false`` where the model knew nothing). Where fresh
    reads disagree on a value, it is a stamp: the first is kept, and compared by its presence."""
    out = []
    for tool, pairs, entity, _ in list_reads(spec, evidence):
        mine = {str(r.get(entity.key)): r for r in spec.initial_state.get(entity.name, [])}
        learned: dict[str, JSON] = {}
        for p in pairs:
            real_rows = records_in(p.real) if p.real_ok and p.fresh else None
            if real_rows is None or not isinstance(p.raw, list):
                continue
            for real, model in matched_records(real_rows, [r for r in p.raw if isinstance(r, dict)]):
                key = str(model.get(entity.key))
                if key not in mine:
                    continue
                for name, value in real.items():
                    if name == entity.key or name.endswith(MINTED) or (name in model and model[name] == value):
                        continue
                    seen = learned.setdefault(key, {})
                    seen.setdefault(name, value)  # fresh reads that disagree: a stamp, held by its presence
        learned = {k: v for k, v in learned.items() if v}
        if not learned:
            continue
        added = {n: schema_of(v) for fields in learned.values() for n, v in fields.items() if n not in entity.fields}
        changed = entity.model_copy(update={"fields": {**entity.fields, **added}})
        rows = [{**row, **learned.get(str(row.get(entity.key)), {})} for row in spec.initial_state[entity.name]]
        names = sorted({n for fields in learned.values() for n in fields})
        out.append(Candidate(tool, "start-rows", f"{entity.name} records start holding {', '.join(names)}"[:120],
                             spec.behaviour(tool), entities=(changed,), rows={entity.name: rows},
                             confirms="a first read answers the starting records so"))  # fmt: skip
    return out


@PROPOSERS.register("start-records")
def start_records(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """Records the real thing starts with that the model does not hold at all (reference data: a
    server seeded with contacts and tasks): every record a list read before any write of its
    sequence answered, by the key the entity is known by, with the values the first such read
    showed (a value fresh reads disagree on is a stamp, compared by its presence, as in
    ``start-rows``). The model starts holding them, under the real keys, so later calls name them
    as the real side does."""
    out = []
    for tool, pairs, entity, _ in list_reads(spec, evidence):
        held = [r for r in spec.initial_state.get(entity.name, []) if isinstance(r, dict)]
        found: dict[str, JSON] = {}
        for p in pairs:
            real_rows = records_in(p.real) if p.real_ok and p.fresh else None
            for record in real_rows or ():
                if not isinstance(record, dict) or record.get(entity.key) in (None, "", [], {}):
                    continue
                if matched_records([record], held):  # the model holds it already (``start-rows``)
                    continue
                key = str(record[entity.key])
                seen = found.setdefault(key, {})
                for name, value in record.items():
                    seen.setdefault(name, value)  # fresh reads that disagree: a stamp, held by its presence
        if not found:
            continue
        added = {n: schema_of(v) for r in found.values() for n, v in r.items() if n not in entity.fields}
        changed = entity.model_copy(update={"fields": {**entity.fields, **added}})
        rows = [*spec.initial_state.get(entity.name, []), *found.values()]
        summary = f"{entity.name} starts with {len(found)} records a first read showed"
        out.append(Candidate(tool, "start-records", summary, spec.behaviour(tool), entities=(changed,),
                             rows={entity.name: rows},
                             confirms="a first read answers these records"))  # fmt: skip
    return out


__all__ = ["start_records", "start_rows"]
