import math

import pytest

from benchchecker_plugin.membership import method_metrics


def test_metrics_with_decisions_hand_computed():
    m = method_metrics([1, 1, 1, 0, 0, 0], [3.0, 2.0, 0.5, 1.0, 0.1, 0.0],
                       [True, True, False, True, False, False])
    assert m["auc"] == pytest.approx(8 / 9)
    assert m["tpr"] == pytest.approx(2 / 3) and m["fpr"] == pytest.approx(1 / 3)
    assert m["tpr_at_5fpr"] == pytest.approx(2 / 3)


def test_metrics_without_decisions_use_the_5pct_fpr_threshold_and_drop_nan():
    m = method_metrics([1, 1, 0, 0, 1], [0.9, 0.4, 0.5, 0.1, math.nan])
    assert m["n"] == 4 and m["dropped_nan"] == 1
    assert m["fpr"] == 0.0 and m["tpr"] == pytest.approx(0.5)
    assert m["auc"] == pytest.approx(0.75)


def test_single_class_gives_none_not_a_number():
    m = method_metrics([1, 1], [0.2, 0.3], [True, False])
    assert m["auc"] is None and m["fpr"] is None
