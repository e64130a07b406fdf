"""The flags format: the one interchange between detectors, scorers and harness adapters."""

from ._columns import ABSENT, FlagColumns, FlagTally, read_flag_columns, tally_flags
from ._io import flags_schema, iter_flags, read_flags, validate_record, write_flags
from ._merge import (
    ASSUME_REPO_SEEN_REASON,
    MERGED_METHOD,
    STAGE1_METHOD,
    STAGE2_METHOD,
    MergePolicy,
    merge_flags,
    verdicts_for,
)
from ._record import ANY_MODEL, SCHEMA_VERSION, ContaminationFlag, Verdict

__all__ = [
    "ABSENT",
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
