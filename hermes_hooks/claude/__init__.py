"""The Claude Code dialect of shell hooks: Claude Code's events, tool names, matchers,
``if:`` permission rules, input and output documents, prompt and agent hooks, and the
two importers (``import-claude`` for settings, plugins and marketplaces,
:mod:`~hermes_hooks.claude.import_settings`; ``import-session --from claude-code`` for
transcripts, :mod:`~hermes_hooks.claude.import_transcript`).
"""
