"""The flags format: the one interchange between detectors, scorers and harness adapters."""

from .columns import FlagColumns, FlagTally, read_flag_columns, tally_flags
from .io import flags_schema, iter_flags, read_flags, validate_record, write_flags
from .merge import (
    ASSUME_REPO_SEEN_REASON,
    MERGED_METHOD,
    STAGE1_METHOD,
    STAGE2_METHOD,
    MergePolicy,
    merge_flags,
    verdicts_for,
)
from .record import ANY_MODEL, SCHEMA_VERSION, ContaminationFlag, Verdict

__all__ = [
    "ANY_MODEL",
    "ASSUME_REPO_SEEN_REASON",
    "ContaminationFlag",
    "FlagColumns",
    "FlagTally",
    "MERGED_METHOD",
    "MergePolicy",
    "SCHEMA_VERSION",
    "STAGE1_METHOD",
    "STAGE2_METHOD",
    "Verdict",
    "flags_schema",
    "iter_flags",
    "merge_flags",
    "read_flag_columns",
    "read_flags",
    "tally_flags",
    "validate_record",
    "verdicts_for",
    "write_flags",
]
