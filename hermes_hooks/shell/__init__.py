"""Shell hooks: scripts declared under ``hooks:`` in ``config.yaml``, spoken to as JSON
on stdin and stdout, run per firing or kept running, with consent pinned to the files a
command leads to.

:mod:`~hermes_hooks.shell.source` turns the entries into callbacks; a
:class:`~hermes_hooks.shell.dialect.Dialect` says how one kind of script is spoken to
(:mod:`~hermes_hooks.shell.hermes` here, the Claude Code one in
:mod:`hermes_hooks.claude`).
"""
