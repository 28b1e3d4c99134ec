"""The deepagents integration: `FilestoreBackend`, and `FilestoreSandbox` (with `execute`).

Install with the extra, `pip install "filestore[deepagents]"`, which pins the
deepagents release the backend is tested against. The implementation lives in
`filestore.backend`; this module is the public name.
"""

from filestore.backend import FilestoreBackend
from filestore.sandbox import FilestoreSandbox

__all__ = ["FilestoreBackend", "FilestoreSandbox"]
