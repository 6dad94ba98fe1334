"""The command line: `python -m bot simulate | play | export`, and the terminal rendering."""
