"""Other hosts that fire the hermes-hooks catalogue: the Hermes Agent bridge plugin, the
MCP proxy and the agent SDK adapters.

Each integration only *fires* the typed facade (``hermes_hooks.load(...)``) at the points
its host offers and translates the answers back into what that host expects; it never
calls a hook system directly. Every integration needs its host's package, installed
through an optional extra, so nothing here is imported by ``import hermes_hooks``.

The agent SDK adapters, one module per SDK (``docs/hosts.md``):
``openai_agents`` (``OpenAIAgentsGuard``), ``langchain`` (``HermesMiddleware``, for
LangChain and LangGraph) and ``claude_agent_sdk`` (``claude_agent_hooks``); what they
share is ``_sdk_common``.
"""
