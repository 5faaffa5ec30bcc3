"""``python -m tcsexam``: the ``tcsexam`` command."""

from tcsexam.tui.cli import entry

entry()
