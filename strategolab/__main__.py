"""``python -m strategolab``: the same command line as the ``strategolab`` command."""

from strategolab.cli import main

if __name__ == "__main__":  # guarded: worker processes started by "spawn" import this module again
    raise SystemExit(main())
