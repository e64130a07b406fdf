"""The one exception hierarchy of benchchecker.

Every error the package raises on purpose derives from :class:`BenchcheckerError`, carries a
message that names the bad input, and maps to a CLI exit code::

    BenchcheckerError                  (exit 1)  root: catch this to catch everything of ours
    ├── InputError                     (exit 2)  a file, option, argument or record the user gave
    │   │                                        is wrong (also a ValueError)
    │   ├── FlagsFormatError                     a flags record fails the schema (file, line, field)
    │   ├── ModelSpecError                       a model spec string cannot be resolved
    │   ├── DataError                            a benchmark / results / patch file is malformed
    │   │   └── HubUnavailableError              a dataset named by its hub name cannot be loaded
    │   │                                        (offline); names the local-data option to pass
    │   └── MissingExtraError                    a harness this command needs is not installed,
    │                                            or its version lacks an API we use
    ├── ModelError                     (exit 3)  a model backend failed to answer
    ├── RepositoryError                (exit 4)  git: missing commit, shallow clone, no history
    └── ExecutionError                 (exit 5)  a test run / harness call failed
"""

from __future__ import annotations

__all__ = [
    "BenchcheckerError",
    "DataError",
    "ExecutionError",
    "FlagsFormatError",
    "HubUnavailableError",
    "InputError",
    "MissingExtraError",
    "ModelError",
    "ModelSpecError",
    "RepositoryError",
]


class BenchcheckerError(Exception):
    """Root of every error raised by benchchecker.

    ``instance`` is the benchmark instance the error is about (``None``: none in particular); when
    set, the message starts with it (``instance 'x-1': ...``), once. Subclasses keep their own
    context (:class:`FlagsFormatError`'s file, line and field) as attributes too.
    """

    exit_code = 1
    instance: str | None = None

    def __str__(self) -> str:
        text = super().__str__()
        if self.instance is not None and f"instance {self.instance!r}" not in text:
            return f"instance {self.instance!r}: {text}"
        return text


class InputError(BenchcheckerError, ValueError):
    """A file, option, argument or record supplied by the user is invalid.

    Also a :class:`ValueError` (as scikit-learn's ``NotFittedError`` is), so callers that catch
    ``ValueError`` around a validating function keep working.
    """

    exit_code = 2


class FlagsFormatError(InputError):
    """A flags file or record does not follow the flags schema.

    ``source`` is the file (or ``"<record>"``), ``line`` the 1-based line number (or ``None``),
    ``field`` the JSON path of the offending field (or ``None``).
    """

    def __init__(self, message: str, *, source: str = "<record>", line: int | None = None,
                 field: str | None = None) -> None:
        self.source = source
        self.line = line
        self.field = field
        where = source if line is None else f"{source}:{line}"
        what = f" field '{field}':" if field else ""
        super().__init__(f"{where}:{what} {message}")


class ModelSpecError(InputError):
    """A model spec string (``hf/...``, ``openai-compatible/...``, ``inspect/...``) is invalid."""


class DataError(InputError):
    """A benchmark, results, tiers or patch input is malformed."""


class HubUnavailableError(DataError):
    """A dataset asked for by its Hugging Face hub name (``cais/mmlu``,
    ``princeton-nlp/SWE-bench_Verified``) could not be loaded, e.g. offline.

    The loader does not know which option of which command gives a local copy; the command does:
    it re-raises with :meth:`naming` (``--data mmlu=DIR``, ``-T data=DIR``, ...), so every hub
    failure a user sees names the offline option."""

    def __init__(self, message: str, *, hub_name: str = "", cause: str = "") -> None:
        self.hub_name = hub_name or message
        self.cause = cause
        super().__init__(message)

    @classmethod
    def of(cls, hub_name: str, cause: object, option: str | None = None) -> HubUnavailableError:
        """The error for ``hub_name`` failing with ``cause``, naming ``option`` when known."""
        text = " ".join(str(cause).split())
        text = text if len(text) <= 300 else text[:297] + "..."
        tail = f"offline, pass {option}" if option else "pass a local copy instead"
        return cls(f"{hub_name}: cannot load from the Hugging Face hub ({text}); {tail}",
                   hub_name=hub_name, cause=text)

    def naming(self, option: str) -> HubUnavailableError:
        """The same failure, naming ``option`` as the way to run offline."""
        return HubUnavailableError.of(self.hub_name, self.cause, option)


class MissingExtraError(InputError):
    """An optional harness (lm-eval, inspect-ai, swebench) that a command needs is missing, or the
    installed version lacks a (private) API we use; the message names the extra or the supported
    version range to install."""


class ModelError(BenchcheckerError):
    """A model backend failed (server down, out of memory, provider error)."""

    exit_code = 3


class RepositoryError(BenchcheckerError):
    """A git repository cannot give what was asked (missing commit, shallow clone, no history)."""

    exit_code = 4


class ExecutionError(BenchcheckerError):
    """Running tests or a harness failed."""

    exit_code = 5
