"""The MCP proxy: ``hermes-hooks mcp-proxy`` guards any MCP client's tool calls.

:mod:`.proxy` relays one client to one upstream server and fires the facade on every
``tools/call``, whichever front end serves the client (:mod:`.stdio`, or :mod:`.listen`
over streamable HTTP, one relay per client session); :mod:`.pins` consents tool
definitions as shell hooks are consented; :mod:`.naming` names tools as the agents do
(``mcp__<server>__<tool>``).  The relay needs the ``mcp`` extra; :mod:`.pins` and
:mod:`.naming` do not (``approve`` uses them).
"""
