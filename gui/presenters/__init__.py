"""Presenters: what an action or a controller's signal does to the views (one job each).

A presenter is given the views and the adapters it works with; it holds no state of its own
beyond the connections, and computes nothing (that is core's, through the adapters)."""
