"""``python -m geungeo`` runs the CLI."""

from geungeo.interfaces.cli import main

main()
