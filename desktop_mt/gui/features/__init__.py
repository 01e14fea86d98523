"""What the window does, one module a feature, each built on the ports (``desktop_mt.gui.ports``)
rather than on the controller.
"""
