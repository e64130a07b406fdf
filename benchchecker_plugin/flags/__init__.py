"""The flags format: the one interchange between detectors, scorers and harness adapters."""

from .io import flags_schema, iter_flags, read_flags, validate_record, write_flags
from .merge import MERGED_METHOD, MergePolicy, merge_flags, verdicts_for
from .record import ANY_MODEL, SCHEMA_VERSION, ContaminationFlag, Verdict

__all__ = [
    "ANY_MODEL",
    "ContaminationFlag",
    "MERGED_METHOD",
    "MergePolicy",
    "SCHEMA_VERSION",
    "Verdict",
    "flags_schema",
    "iter_flags",
    "merge_flags",
    "read_flags",
    "validate_record",
    "verdicts_for",
    "write_flags",
]
