"""The dialogs the window opens: Settings (with the glossary editor), Models, History, the
translation memory and the screen-region picker.
"""

__all__: list[str] = []
