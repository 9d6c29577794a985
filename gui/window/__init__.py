"""The main window: its panels composed, menus and toolbar, layout, task bar and banners (a Qt layer over window_state)."""
