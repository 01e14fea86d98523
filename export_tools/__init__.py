"""Tools that turn HuggingFace seq2seq checkpoints into desktop-mt model directories.

Torch and transformers live here (and in tests), never in the ``desktop_mt`` runtime.
"""
