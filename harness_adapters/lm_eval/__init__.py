"""Harness wrappers (imported lazily; nothing is imported at package import)."""
