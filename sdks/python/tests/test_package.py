"""The distributable: the wheel builds offline (no build isolation, the
test environment's setuptools) with the package's name, version, licence,
README and both modules, so publishing is `python -m build && twine upload`."""

from __future__ import annotations

import email
import pathlib
import re
import subprocess
import sys
import zipfile

from relay_sdk import __version__

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_the_wheel_has_name_version_licence_readme_and_both_modules(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "--wheel-dir", str(tmp_path), str(ROOT)],
        check=True,
        capture_output=True,
        cwd=tmp_path,
    )
    wheel = tmp_path / f"relay_sdk-{__version__}-py3-none-any.whl"
    assert wheel.exists(), list(tmp_path.iterdir())
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        meta = email.message_from_bytes(z.read(f"relay_sdk-{__version__}.dist-info/METADATA"))
    assert meta["Name"] == "relay-sdk" and meta["Version"] == __version__
    assert "Apache-2.0" in (meta.get("License-Expression") or meta.get("License") or "")
    assert any(n.endswith("dist-info/licenses/LICENSE") for n in names), names
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert meta.get_payload(decode=True).decode("utf-8").strip() == readme.strip()
    for module in ("relay_sdk/__init__.py", "relay_sdk/_generated/client.py",
                   "relay_sdk/py.typed", "relay_verify/__init__.py", "relay_verify/py.typed"):
        assert module in names, module
    assert not any(n.startswith(("tests/", "examples/")) for n in names)
    requires = meta.get_all("Requires-Dist")
    assert {re.split(r"[<>=!~;\[ ]", r)[0] for r in requires} >= {"cryptography", "httpx", "attrs", "python-dateutil"}
