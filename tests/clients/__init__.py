"""Tests of the clients under `clients/`: the Python package against a live server, the
TypeScript types generated from the document, checked by `tsc`, and the TypeScript client
compiled against them and run by Node.js against a live server."""

import sys
from pathlib import Path

# The Python client is its own package (clients/python), not part of the service: importable
# here as an installed user would import it, without installing it into the project.
CLIENT_ROOT = Path(__file__).resolve().parents[2] / "clients" / "python"
if str(CLIENT_ROOT) not in sys.path:
    sys.path.insert(0, str(CLIENT_ROOT))
