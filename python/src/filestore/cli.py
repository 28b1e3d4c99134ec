"""The `filestore` command the wheel installs: the Rust CLI (`serve`, `call`,
`check`, `migrate`, `component`) run inside this interpreter by the native extension."""

from __future__ import annotations

import sys


def main() -> None:
    """Run `filestore` with this process's arguments and exit with its status."""
    from filestore import _native

    sys.exit(_native.main(["filestore", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
