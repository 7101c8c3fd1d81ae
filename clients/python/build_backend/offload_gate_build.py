"""An in-tree PEP 517 build backend: the standard library only.

The package is pure Python with no dependencies, so building it needs no
setuptools and no wheel: `pip install --no-index ./clients/python` works in a
plain `python3 -m venv`, with or without a package index. It builds the one
wheel this package needs (and an sdist, and a PEP 660 editable wheel).
"""

from __future__ import annotations

import base64
import hashlib
import io
import pathlib
import re
import tarfile
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
NAME = "offload_gate"
TAG = "py3-none-any"


def _project(field: str) -> str:
    # pyproject.toml's [project] holds the metadata; tomllib is not in 3.10, and
    # these fields are one-line strings there.
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    match = re.search(rf'^{field} = "([^"]*)"$', text, re.MULTILINE)
    if match is None:
        raise RuntimeError(f"pyproject.toml has no {field}")
    return match.group(1)


def _classifiers() -> list[str]:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    block = re.search(r"^classifiers = \[(.*?)\]", text, re.MULTILINE | re.DOTALL)
    return re.findall(r'"([^"]+)"', block.group(1)) if block else []


def _version() -> str:
    text = (ROOT / "src" / NAME / "_version.py").read_text(encoding="utf-8")
    match = re.search(r'^__version__ = "([^"]+)"$', text, re.MULTILINE)
    if match is None:
        raise RuntimeError("src/offload_gate/_version.py has no __version__")
    return match.group(1)


def _metadata() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    classifiers = "".join(f"Classifier: {classifier}\n" for classifier in _classifiers())
    return (
        "Metadata-Version: 2.1\n"
        f"Name: {_project('name')}\nVersion: {_version()}\nSummary: {_project('description')}\n"
        f"Requires-Python: {_project('requires-python')}\n{classifiers}"
        "Description-Content-Type: text/markdown\n\n"
        f"{readme}"
    )


def _dist_info() -> str:
    return f"{NAME}-{_version()}.dist-info"


def _package_files() -> list[tuple[str, bytes]]:
    package = ROOT / "src" / NAME
    files = sorted(p for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")
    # The shared constants (clients/constants.json) are generated into _constants.py: nothing to copy in.
    return [(f"{NAME}/{p.relative_to(package).as_posix()}", p.read_bytes()) for p in files]


def _write_wheel(directory: str, files: list[tuple[str, bytes]]) -> str:
    info = _dist_info()
    wheel = "Wheel-Version: 1.0\nGenerator: offload_gate_build\nRoot-Is-Purelib: true\n" f"Tag: {TAG}\n"
    entries = [*files, (f"{info}/METADATA", _metadata().encode()), (f"{info}/WHEEL", wheel.encode())]
    record = [f"{path},sha256={_digest(data)},{len(data)}" for path, data in entries]
    record.append(f"{info}/RECORD,,")
    entries.append((f"{info}/RECORD", ("\n".join(record) + "\n").encode()))
    filename = f"{NAME}-{_version()}-{TAG}.whl"
    with zipfile.ZipFile(pathlib.Path(directory) / filename, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, data in entries:
            archive.writestr(zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0)), data)
    return filename


def _digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def get_requires_for_build_wheel(config_settings=None) -> list[str]:
    return []


def get_requires_for_build_sdist(config_settings=None) -> list[str]:
    return []


def get_requires_for_build_editable(config_settings=None) -> list[str]:
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None) -> str:
    return _write_wheel(wheel_directory, _package_files())


def build_editable(wheel_directory, config_settings=None, metadata_directory=None) -> str:
    # A .pth file that puts src/ on the path: edits show without a reinstall.
    return _write_wheel(wheel_directory, [(f"_{NAME}_editable.pth", f"{ROOT / 'src'}\n".encode())])


def build_sdist(sdist_directory, config_settings=None) -> str:
    base = f"{NAME}-{_version()}"
    filename = f"{base}.tar.gz"
    paths = ["pyproject.toml", "README.md", "build_backend/offload_gate_build.py"]
    paths += [p.relative_to(ROOT).as_posix() for p in sorted((ROOT / "src").rglob("*")) if p.is_file() and "__pycache__" not in p.parts]
    with tarfile.open(pathlib.Path(sdist_directory) / filename, "w:gz") as archive:
        for path in paths:
            archive.add(ROOT / path, arcname=f"{base}/{path}")
        pkg_info = _metadata().encode()
        member = tarfile.TarInfo(f"{base}/PKG-INFO")
        member.size = len(pkg_info)
        archive.addfile(member, io.BytesIO(pkg_info))
    return filename
