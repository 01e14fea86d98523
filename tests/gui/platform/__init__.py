"""Tests of desktop_mt.gui.platform. The folder shadows the standard library's ``platform`` for a
script whose own folder is tests/gui (sys.path[0]): a script run by a test lives beside its test,
not at tests/gui's top (window/tray_notice_probe.py)."""
