"""Documents of the ``mmlu_local`` tasks: one subject of MMLU from local CSV files.

The folder comes from ``--metadata '{"data": ...}'`` (``PATH`` or ``mmlu=PATH``, as benchchecker's
``--data``; or ``mmlu_data``), else the environment
variable ``BENCHCHECKER_MMLU_DATA``; the rows are read by ``benchchecker_plugin.tsguessing``'s
MMLU loader, the one ``benchchecker ts-guess --data`` uses, so both see the same items.
"""

from __future__ import annotations

import os
from typing import Any

from benchchecker_plugin.errors import HubUnavailableError, InputError
from benchchecker_plugin.local_data import local_data
from benchchecker_plugin.tsguessing import load_mmlu

ENV = "BENCHCHECKER_MMLU_DATA"


def _rows(folder: str, split: str, subject: str) -> list[dict[str, Any]]:
    try:
        items = load_mmlu(folder, split=split, subjects=[subject])
    except HubUnavailableError as exc:
        raise exc.naming(f"--metadata '{{\"data\": \"PATH\"}}' or ${ENV}") from exc
    return [{"question": i.question, "subject": subject, "choices": list(i.options),
             "answer": i.answer} for i in items]


def load(**kwargs: Any):  # type: ignore[no-untyped-def]
    """``DatasetDict`` with ``test`` (and ``dev`` for few-shot examples, when present)."""
    import datasets

    subject = kwargs.get("subject")
    folder = kwargs.get("mmlu_data") or kwargs.get("data") or os.environ.get(ENV)
    if folder and not kwargs.get("mmlu_data") and kwargs.get("data"):   # PATH or mmlu=PATH
        folder = local_data([str(folder)], ["mmlu"], "--metadata '{{\"data\": \"{}\"}}'")["mmlu"]
    if not folder:
        raise InputError(f"mmlu_local_{subject}: no MMLU folder; pass --metadata "
                         f"'{{\"data\": \"/path/to/mmlu\"}}' or set {ENV}")
    test = _rows(folder, "test", subject)
    if not test:
        raise InputError(f"mmlu_local_{subject}: no rows for subject '{subject}' in {folder}")
    splits = {"test": datasets.Dataset.from_list(test)}
    if os.path.isdir(os.path.join(folder, "dev")):
        splits["dev"] = datasets.Dataset.from_list(_rows(folder, "dev", subject))
    return datasets.DatasetDict(splits)
