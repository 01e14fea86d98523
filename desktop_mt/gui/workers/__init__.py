"""QObjects that run on threads of their own: the translation worker and the model downloads."""

__all__: list[str] = []
