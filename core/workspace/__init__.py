"""The application's state without Qt: the open model and the campaign, with plain callbacks.

Why here: the command line, the Python API, the GUI and the tests hold the same state (which
environment, which constants and labels, the oracle once built; a campaign's settings, whether
it runs, how far it got). It lives once in these plain objects; the GUI's controllers are thin
Qt adapters that forward the callbacks as signals (napari's ``ViewerModel`` is the pattern).
"""

from explaincheck.core.workspace.campaign import CampaignRequest, CampaignWorkspace
from explaincheck.core.workspace.events import Event
from explaincheck.core.workspace.model import ModelChoices, ModelWorkspace

__all__ = ["CampaignRequest", "CampaignWorkspace", "Event", "ModelChoices", "ModelWorkspace"]
