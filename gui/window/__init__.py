"""The main window: its panels composed, menus and toolbar, layout, task bar and banners.

A Qt layer over window_state.
"""
