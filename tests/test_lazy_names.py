"""Lazily exported names: a package face stays light to import, and the name still resolves."""

from __future__ import annotations

import subprocess
import sys
import types

import pytest

from benchchecker_plugin.lazy_names import lazy_names


def test_a_lazy_name_is_imported_on_first_use_and_kept() -> None:
    package = types.ModuleType("fake_pkg")
    sys.modules["fake_pkg"] = package
    try:
        package.__getattr__ = lazy_names("fake_pkg", {"dumps": "json"})  # type: ignore[attr-defined]
        import json

        assert package.dumps is json.dumps
        assert package.__dict__["dumps"] is json.dumps   # kept: the next read is a plain one
        with pytest.raises(AttributeError, match="module 'fake_pkg' has no attribute 'loads'"):
            package.loads  # noqa: B018
    finally:
        del sys.modules["fake_pkg"]


def test_the_models_and_overlap_faces_load_no_torch_or_pandas_until_asked() -> None:
    code = ("import sys\n"
            "import benchchecker_plugin.models, benchchecker_plugin.overlap\n"
            "heavy = [m for m in ('torch', 'transformers', 'pandas', 'numba') if m in sys.modules]\n"
            "assert not heavy, heavy\n"
            "from benchchecker_plugin.models import HFModel\n"
            "from benchchecker_plugin.overlap import run_overlap_eval\n"
            "assert 'torch' in sys.modules and HFModel.__name__ == 'HFModel'\n"
            "assert run_overlap_eval.__module__ == 'benchchecker_plugin.overlap._controlled'\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_no_package_face_loads_numba_until_a_kernel_runs() -> None:
    """The numba-bearing modules (the scorer's and the overlap engine's kernels) load on first use
    wherever a face imports them: importing every face of the house loads no numba; the first
    AUC loads it."""
    code = ("import importlib, pkgutil, sys\n"
            "import benchchecker_plugin, harness_adapters\n"
            "faces = ['benchchecker_plugin'] + [f'{p.__name__}.{m.name}' for p in (benchchecker_plugin, "
            "harness_adapters) for m in pkgutil.iter_modules(p.__path__) if not m.name.startswith('_')]\n"
            "assert 'benchchecker_plugin.scoring' in faces and len(faces) > 40, faces\n"
            "for name in faces:\n"
            "    importlib.import_module(name)\n"
            "    assert 'numba' not in sys.modules, name\n"
            "from benchchecker_plugin.scoring import roc_auc_score\n"
            "assert roc_auc_score([0, 1, 1], [0.1, 0.9, 0.4]) == 1.0 and 'numba' in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True)
