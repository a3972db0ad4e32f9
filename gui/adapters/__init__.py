"""Adapters: Qt objects over core's Qt-free workspaces and functions.

Controllers own a workspace (``core/workspace/``) and turn its plain events into Qt signals,
running blocking work off the GUI thread; item models turn stored rows into Qt's table
interface. Views talk to adapters through signals and plain data only."""
