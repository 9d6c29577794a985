"""Build the GrammarLens desktop app (a one-folder PyInstaller bundle) and report its size and build time.

    python packaging/build.py --variant lite          # dist/GrammarLens-lite/ (+ .zip with --zip)
    python packaging/build.py --variant full --zip    # dist/GrammarLens-full/ and dist/GrammarLens-full-<os>.zip

Run it with the Python of the environment that has GrammarLens's requirements (``.venv/bin/python``
on Linux and macOS, ``.venv\\Scripts\\python`` on Windows); PyInstaller freezes that interpreter and
those packages, so a bundle is built on, and for, the operating system it runs on.

Measured numbers (seconds, bytes, files) are printed and written next to the bundle as
``<name>.build.json``, so the README's table can be refreshed from a real build.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
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
    platform: str = ""

    def summary(self) -> str:
        line = (f"{self.variant}: {self.folder} - {human(self.bytes)} in {self.files} files, "
                f"built in {self.seconds:.0f} s")
        if self.zip_path:
            line += f"; {Path(self.zip_path).name} {human(self.zip_bytes or 0)} (zipped in {self.zip_seconds:.0f} s)"
        return line


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
    size, files = folder_size(folder)
    return BuildReport(variant=variant, folder=str(folder), executable=str(executable_path(folder)),
                       seconds=round(seconds, 1), bytes=size, files=files, platform=os_tag())


def zip_bundle(report: BuildReport) -> None:
    """Zip the folder (the thing a linguist downloads and unzips), timing it."""
    folder = Path(report.folder)
    started = time.perf_counter()
    archive = shutil.make_archive(str(folder.parent / f"{folder.name}-{report.platform}"), "zip",
                                  root_dir=folder.parent, base_dir=folder.name)
    report.zip_seconds = round(time.perf_counter() - started, 1)
    report.zip_path = archive
    report.zip_bytes = Path(archive).stat().st_size


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
    return 0


if __name__ == "__main__":
    sys.exit(main())
