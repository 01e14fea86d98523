"""The base layer: errors, user folders, atomic files, the version, UTF-8 standard streams and
package data. Everything in desktop_mt may import it; it imports nothing of desktop_mt above it.
"""

__all__: list[str] = []
