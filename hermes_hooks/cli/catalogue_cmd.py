"""``hermes-hooks hooks``: the catalogue of plugin hooks (name, kind, payload fields)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from hermes_hooks._manager import unknown_hook
from hermes_hooks.cli._run import print_json
from hermes_hooks.hookspecs import CATALOGUE

if TYPE_CHECKING:
    from hermes_hooks._contract import Contract


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """An optional hook name shows that hook's full documentation."""
    parser.add_argument("hook", nargs="?", help="show one hook in full")


def _adapters_line(contract: Contract) -> str:
    """Where else the hook may go, with the reason when it may not."""
    shell = f"no ({contract.shell_refusal})" if contract.shell_refusal else "yes"
    webhooks = f"no ({contract.webhook_refusal})" if contract.webhook_refusal else "yes"
    matcher = "yes" if contract.matcher else "no"
    return f"shell hooks: {shell}; outbound webhooks: {webhooks}; tool matcher: {matcher}"


def run(args: argparse.Namespace) -> int:
    """Print the catalogue, or one hook's contract and documentation."""

    names = list(CATALOGUE)
    if args.hook:
        if args.hook not in CATALOGUE:
            raise unknown_hook(args.hook)
        names = [args.hook]
    rows: list[dict[str, Any]] = [
        {
            "name": c.name,
            "kind": c.kind.value,
            "selection": c.selection.value,
            "bounded": c.bounded,
            "on_error": c.policy.on_error.value,
            "thread": c.policy.thread.value,
            "shell": c.shell.value,
            "shell_refusal": c.shell_refusal,
            "webhooks": c.webhooks,
            "webhook_refusal": c.webhook_refusal,
            "matcher": c.matcher,
            "streaming": c.streaming,
            "fields": {f.name: f.type for f in c.fields},
        }
        for c in (CATALOGUE[n] for n in names)
    ]
    if args.json:
        print_json(rows if not args.hook else rows[0])
        return 0
    if args.hook:
        contract = CATALOGUE[args.hook]
        print(
            f"{contract.name}  ({contract.kind.value}; {contract.policy.on_error.value}; "
            f"thread: {contract.policy.thread.value}; shell: {contract.shell.value})"
        )
        print(_adapters_line(contract))
        print()
        print(contract.doc)
        print()
        print("Payload fields:")
        for f in contract.fields:
            print(f"  {f.name}: {f.type}")
        return 0
    width = max(len(n) for n in names)
    for row in rows:
        print(f"{row['name']:<{width}}  {row['kind']:<15}  {', '.join(row['fields'])}")
    return 0
