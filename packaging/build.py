"""Build the GrammarLens desktop app (a one-folder PyInstaller bundle) and report its size and build time.

    python packaging/build.py --variant lite          # dist/GrammarLens-lite/ (+ .zip with --zip)
    python packaging/build.py --variant full --zip    # dist/GrammarLens-full/, GrammarLens-<version>-full-<os>.zip

Run it with the Python of the environment that has GrammarLens's requirements (``.venv/bin/python``
on Linux and macOS, ``.venv\\Scripts\\python`` on Windows); PyInstaller freezes that interpreter and
those packages, so a bundle is built on, and for, the operating system it runs on.

Measured numbers (seconds, bytes, files, the largest folders) are printed and written next to the bundle
as ``<name>.build.json``, with the version of every package that went in (to rebuild the same thing:
``constraints.txt``), so the README's table can be refreshed from a real build.  ``build_info.json``
inside the bundle gives ``GrammarLens --version`` its variant and build date.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import json
import os
import platform
import re
import stat
import subprocess
import sys
import time
import zipfile
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "packaging" / "grammarlens.spec"
APP_NAME = "GrammarLens"
VARIANTS = ("lite", "full")


@dataclass
class BuildReport:
    """What one build produced and how long it took."""

    variant: str
    folder: str
    executable: str
    seconds: float
    bytes: int
    files: int
    zip_path: str | None = None
    zip_bytes: int | None = None
    zip_seconds: float | None = None
    zip_sha256: str | None = None
    platform: str = ""
    app_version: str = ""
    built_at: str = ""  # UTC, minutes: what ``--version`` of the bundle prints
    commit: str = ""  # the checkout's git commit, "+changes" when it had uncommitted ones
    python: str = ""
    top_folders: list[tuple[str, int]] = field(default_factory=list)  # where the bytes are, largest first
    versions: dict[str, str] = field(default_factory=dict)  # every distribution of the build environment

    def summary(self) -> str:
        line = (f"{self.variant}: {self.folder} - {human(self.bytes)} in {self.files} files, "
                f"built in {self.seconds:.0f} s")
        if self.zip_path:
            line += f"; {Path(self.zip_path).name} {human(self.zip_bytes or 0)} (zipped in {self.zip_seconds:.0f} s)"
        return line


def app_version() -> str:
    """core.__version__, read from the source (the build does not import the app)."""
    text = (ROOT / "core" / "__init__.py").read_text(encoding="utf-8")
    return text.split("__version__ = ")[1].split()[0].strip("\"'")


def installed_versions() -> dict[str, str]:
    """Name -> version of every distribution in the environment being frozen (what a rebuild must match)."""
    found = {}
    for dist in importlib.metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            found[re.sub(r"[-_.]+", "-", name).lower()] = dist.version
    return dict(sorted(found.items()))


def git_commit() -> str:
    """The checkout's commit, marked when the working tree differs from it; '' without git."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""
    return head + ("+changes" if dirty else "")


def top_folders(folder: Path, count: int = 12) -> list[tuple[str, int]]:
    """The largest entries directly inside the bundle's ``_internal`` (or the folder), with their bytes."""
    inside = folder / "_internal" if (folder / "_internal").is_dir() else folder
    sizes = []
    for entry in inside.iterdir():
        size = folder_size(entry)[0] if entry.is_dir() else (0 if entry.is_symlink() else entry.stat().st_size)
        sizes.append((entry.name, size))
    return sorted(sizes, key=lambda item: -item[1])[:count]


def human(size: int) -> str:
    """Sizes as people read them (MiB, one decimal)."""
    return f"{size / 2**20:.1f} MiB"


def folder_size(folder: Path) -> tuple[int, int]:
    """Total bytes and number of files under ``folder`` (symlinks counted once, not followed)."""
    total = count = 0
    for path in folder.rglob("*"):
        if path.is_file() and not path.is_symlink():
            total += path.stat().st_size
            count += 1
    return total, count


def executable_path(folder: Path) -> Path:
    """The app's launcher inside a one-folder bundle."""
    return folder / (f"{APP_NAME}.exe" if os.name == "nt" else APP_NAME)


def os_tag() -> str:
    system = {"Darwin": "macos", "Windows": "windows"}.get(platform.system(), platform.system().lower())
    return f"{system}-{platform.machine().lower()}"


def build(variant: str, dist: Path, work: Path, *, clean: bool = True, log: Path | None = None) -> BuildReport:
    """Run PyInstaller on the spec for ``variant``; returns the measured report.

    ``clean`` empties PyInstaller's caches first, so the time is that of a fresh machine (as in CI).
    PyInstaller's own chatter goes to ``log`` (or is inherited) so failures stay readable.
    """
    folder = dist / f"{APP_NAME}-{variant}"
    command = [sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN",
               "--distpath", str(dist), "--workpath", str(work / variant)]
    if clean:
        command.append("--clean")
    command += [str(SPEC), "--", "--variant", variant]
    started = time.perf_counter()
    if log is None:
        subprocess.run(command, cwd=ROOT, check=True)
    else:
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "w", encoding="utf-8") as out:
            result = subprocess.run(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
        if result.returncode != 0:
            tail = log.read_text(encoding="utf-8", errors="replace")[-4000:]
            raise SystemExit(f"PyInstaller failed ({result.returncode}) for {variant}; log {log}:\n{tail}")
    seconds = time.perf_counter() - started
    report = BuildReport(variant=variant, folder=str(folder), executable=str(executable_path(folder)),
                         seconds=round(seconds, 1), bytes=0, files=0, platform=os_tag(), app_version=app_version(),
                         built_at=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), commit=git_commit(),
                         python=platform.python_version(), versions=installed_versions())
    write_build_info(report)
    report.bytes, report.files = folder_size(folder)
    report.top_folders = top_folders(folder)
    return report


def write_build_info(report: BuildReport) -> None:
    """``build_info.json`` inside the bundle, beside ``resources/``: what ``GrammarLens --version`` prints.

    core/build_info.py reads it from ``sys._MEIPASS`` (the ``_internal`` folder of a one-folder build).
    """
    folder = Path(report.folder)
    inside = folder / "_internal" if (folder / "_internal").is_dir() else folder
    info = {"app_version": report.app_version, "variant": report.variant, "built_at": report.built_at,
            "platform": report.platform, "commit": report.commit}
    (inside / "build_info.json").write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")


def archive_stem(report: BuildReport) -> str:
    """``GrammarLens-0.1.0-full-linux-x86_64``: version, variant and platform, so downloads never collide."""
    return f"{APP_NAME}-{report.app_version}-{report.variant}-{report.platform}"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_zip(folder: Path, archive: Path) -> None:
    """Zip ``folder`` (as its own top folder), storing symbolic links as links, not as second copies.

    PyInstaller links the top of a Linux bundle to libraries deeper inside (``libQt6Gui.so.6`` ->
    ``PySide6/Qt/lib/...``): 27 links to 163 MiB in the full build, which ``shutil.make_archive``
    would store twice.  Info-ZIP's ``unzip`` (and macOS's) restores them as links.
    """
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as out:
        for top, dirs, files in os.walk(folder):
            for name in sorted(dirs + files):
                path = Path(top) / name
                arcname = path.relative_to(folder.parent).as_posix()
                if path.is_symlink():
                    info = zipfile.ZipInfo(arcname, date_time=time.localtime(path.lstat().st_mtime)[:6])
                    info.create_system = 3  # Unix: the mode bits below are read
                    info.external_attr = (stat.S_IFLNK | 0o777) << 16
                    out.writestr(info, os.readlink(path))
                else:  # a file, or a folder's own entry (so empty folders survive)
                    out.write(path, arcname)
            dirs[:] = sorted(d for d in dirs if not (Path(top) / d).is_symlink())  # a linked folder: stored as a link


def zip_bundle(report: BuildReport) -> None:
    """Zip the folder (the thing a linguist downloads and unzips) and write its SHA-256 beside it, timing both.

    The checksum file has ``sha256sum``'s format, so ``sha256sum -c GrammarLens-...zip.sha256`` verifies
    a download.  The zip keeps the files' permissions (the launcher stays executable after ``unzip``).
    """
    folder = Path(report.folder)
    started = time.perf_counter()
    archive = folder.parent / f"{archive_stem(report)}.zip"
    write_zip(folder, archive)
    report.zip_sha256 = sha256_of(archive)
    archive.with_name(archive.name + ".sha256").write_text(f"{report.zip_sha256}  {archive.name}\n", encoding="utf-8")
    report.zip_seconds = round(time.perf_counter() - started, 1)
    report.zip_path = str(archive)
    report.zip_bytes = archive.stat().st_size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", choices=(*VARIANTS, "both"), default="lite")
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="output folder (default dist/)")
    parser.add_argument("--work", type=Path, default=ROOT / "build", help="PyInstaller work folder (default build/)")
    parser.add_argument("--zip", action="store_true", help="also zip each bundle for distribution")
    parser.add_argument("--no-clean", action="store_true", help="reuse PyInstaller's caches (faster rebuilds)")
    parser.add_argument("--log", type=Path, help="write PyInstaller's output here instead of the terminal")
    args = parser.parse_args(argv)
    variants = VARIANTS if args.variant == "both" else (args.variant,)
    for variant in variants:
        log = args.log
        if args.log and len(variants) > 1:
            log = args.log.with_name(f"{args.log.stem}-{variant}{args.log.suffix}")
        report = build(variant, args.dist.resolve(), args.work.resolve(), clean=not args.no_clean, log=log)
        if args.zip:
            zip_bundle(report)
        Path(report.folder).with_suffix(".build.json").write_text(json.dumps(asdict(report), indent=1) + "\n",
                                                                  encoding="utf-8")
        print(report.summary(), flush=True)
        print("  largest: " + ", ".join(f"{name} {human(size)}" for name, size in report.top_folders[:8]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
