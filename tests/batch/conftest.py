import pytest

from .fake_translator import FakeTranslator


@pytest.fixture
def fake():
    """A fresh deterministic fake translator (see fake_translator.py)."""
    return FakeTranslator()
