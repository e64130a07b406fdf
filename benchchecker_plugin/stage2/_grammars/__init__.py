"""Stage II language specs beyond Python and Java: the Multi-SWE-bench languages.

Importing this package registers ``c``, ``cpp``, ``go``, ``javascript``, ``typescript``, ``tsx`` and
``rust`` (one module per grammar family; each module registers its specs on import).
"""

from . import c_family, go, javascript, rust  # noqa: F401  (registration side effects)

__all__: list[str] = []
