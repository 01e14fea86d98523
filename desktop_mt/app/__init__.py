"""The application layer: what the window, the command line and the local server share, below
them and above the engine, batch and models packages (settings and model choice, ...)."""

__all__: list[str] = []
