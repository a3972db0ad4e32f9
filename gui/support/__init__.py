"""What every other part of the GUI stands on: Qt build checks, the theme, untrusted text as
plain labels, settings, and the worker threads (``tasks``, ``session_thread``)."""
