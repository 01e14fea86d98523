"""What the window does, one module a feature, each built as ``Feature(services, <the features
it uses>)`` on the window's :class:`~desktop_mt.gui.services.Services` (never on the controller).
"""

__all__: list[str] = []
