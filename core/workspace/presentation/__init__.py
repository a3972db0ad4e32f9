"""Qt-free presentation logic: the words, sums and choices the window shows, tested without
widgets. The GUI's views, presenters and adapters read these; nothing here imports Qt."""
