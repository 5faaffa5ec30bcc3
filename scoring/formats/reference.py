"""The fixed reference file's types (what is decoded of it; its statistics are in
``scoring.pipeline.reference``)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from tcsexam.scoring.vocab import Direction, Kind

NonEmpty = Annotated[str, msgspec.Meta(min_length=1)]


class ScaleFloor(msgspec.Struct, omit_defaults=True):  # docs/formats.md#reference / R5
    """The floors of an instance's scale, max(s, relative·|mu|, absolute): both are required."""

    relative: Annotated[float, msgspec.Meta(ge=0)]
    absolute: Annotated[float, msgspec.Meta(gt=0)]


class ReferenceTask(msgspec.Struct, gc=False, omit_defaults=True):
    kind: Kind
    direction: Direction
    instances: dict[str, list[float | None]]


class UnscoredReferenceInstance(msgspec.Struct, gc=False, omit_defaults=True):
    task: NonEmpty
    instance: NonEmpty
    values: list[float | None] = msgspec.field(default_factory=list)


# docs/formats.md#reference. Every struct of the file omits defaults when encoded, so that encoding never adds a key
# (the cheap duplicate-key check, ``decode.reject_duplicate_keys``). The docstring is the schema's
# description (``tcsexam schema reference``).
class Reference(msgspec.Struct, gc=False, omit_defaults=True):
    """A fixed, versioned solver reference: per solver task its kind, direction and reference
    instances, against which solver attempts are scored; extra keys are ignored
    (tcsexam docs rules#solver-score)."""

    reference_id: NonEmpty
    suite: NonEmpty
    scale_floor: ScaleFloor
    tasks: dict[str, ReferenceTask]
    # UNSET when the file leaves it out (then none): encoding writes back exactly the keys the file
    # had, an empty list included, so the cheap duplicate-key check holds for every valid file
    unscored_reference_instances: (
        Annotated[list[UnscoredReferenceInstance], msgspec.Meta(extra_json_schema={"default": []})] | msgspec.UnsetType
    ) = msgspec.UNSET

    @property
    def unscored(self) -> list[UnscoredReferenceInstance]:
        """The unscored reference instances ([] when the file lists none)."""
        return self.unscored_reference_instances or []


REFERENCE = msgspec.json.Decoder(Reference)


def encoded_colons(header: Reference) -> int:
    """The ':' of ``header``'s JSON encoding (the cheap duplicate-key check,
    ``decode.reject_duplicate_keys``), without encoding its 10^6 instance values: the rest is
    encoded with every task's instances left out, and each instance adds the ':' after its name
    and those in its name (a list of numbers and nulls holds none)."""
    tasks = {task: msgspec.structs.replace(spec, instances={}) for task, spec in header.tasks.items()}
    rest = msgspec.json.encode(msgspec.structs.replace(header, tasks=tasks)).count(b":")
    return rest + sum(len(spec.instances) + "".join(spec.instances).count(":") for spec in header.tasks.values())
