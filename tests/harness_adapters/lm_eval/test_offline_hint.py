"""A task whose dataset lm-eval cannot fetch from the hub is one line naming the local-copy option;
the other tasks of the call still load."""

from __future__ import annotations

from typing import Any

from harness_adapters.lm_eval._detect import OFFLINE_HINT, load_each


class _Manager:
    """Stands in for lm-eval's TaskManager: ``arc_easy`` needs the hub, ``my_arc`` is local."""

    def load(self, names: list[str]) -> dict[str, Any]:
        if names == ["arc_easy"]:
            try:
                raise RuntimeError("OfflineModeIsEnabled")
            except RuntimeError as cause:
                raise ConnectionError("Couldn't reach 'allenai/ai2_arc' on the Hub (OfflineModeIsEnabled)") \
                    from cause
        if names == ["broken"]:
            raise ValueError("doc_to_target out of range")
        return {"tasks": {names[0]: object()}}


def test_a_hub_task_offline_names_the_local_option_and_the_others_load() -> None:
    tasks, failed = load_each(_Manager(), ["arc_easy", "my_arc", "broken"])
    assert set(tasks) == {"my_arc"}
    assert failed["arc_easy"] == ("lm-eval cannot load it (ConnectionError: Couldn't reach 'allenai/ai2_arc' "
                                  "on the Hub (OfflineModeIsEnabled))" + OFFLINE_HINT)
    assert "--include_path" in failed["arc_easy"]
    assert failed["broken"] == "lm-eval cannot load it (ValueError: doc_to_target out of range)"
