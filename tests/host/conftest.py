"""Host tests load the contrib plugins through their entry points (see contrib_dists)."""

from tests.host.contrib_dists import ensure

ensure()
