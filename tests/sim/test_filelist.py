"""sim.project.filelist: EDA `-f` filelists, parsed from text with an in-memory reader."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from sim.errors import DesignError
from sim.project.filelist import expand_env, parse_filelist, read_filelist, tokens

BASE = Path("/proj")


def reader(files: dict[str, str]) -> Callable[[Path], str]:
    def read(path: Path) -> str:
        try:
            return files[str(path)]
        except KeyError:
            raise FileNotFoundError(2, "No such file or directory") from None
    return read


def test_tokens_drop_every_comment_style() -> None:
    text = "a.sv // trailing\n# a hash line\n/* block\n over lines */ b.sv\n'c d.sv'\n"
    assert tokens(text) == ["a.sv", "b.sv", "c d.sv"]


def test_options_files_and_values() -> None:
    text = """
    +incdir+inc+inc2 -I other -Ithird
    +define+A+B=2 -D C=3 -DD
    -y lib +libext+.v+.sv -v cells/prim.v
    --top-module chip
    -Wno-fatal --timescale 1ns/1ps
    rtl/a.sv
    /abs/b.sv
    """
    fl = parse_filelist(text, BASE, reader({}))
    assert fl.files == (Path("/proj/rtl/a.sv"), Path("/abs/b.sv"))
    assert fl.include_dirs == (Path("/proj/inc"), Path("/proj/inc2"), Path("/proj/other"), Path("/proj/third"))
    assert fl.defines == ("A", "B=2", "C=3", "D")
    assert fl.library_dirs == (Path("/proj/lib"),)
    assert fl.library_exts == (".v", ".sv")
    assert fl.library_files == (Path("/proj/cells/prim.v"),)
    assert fl.top == "chip"
    # The value of --timescale is not a file.
    assert fl.ignored == ("-Wno-fatal", "--timescale", "1ns/1ps")


def test_nested_lists_resolve_against_their_own_folder() -> None:
    files = {
        "/proj/sub/cells.f": "+incdir+inc\nleaf.sv\n-F deeper/more.f\n",
        "/proj/sub/deeper/more.f": "+define+DEEP\nx.sv\n../leaf.sv\n",
    }
    fl = parse_filelist("top.sv\n-f sub/cells.f\n", BASE, reader(files))
    assert fl.files == (Path("/proj/top.sv"), Path("/proj/sub/leaf.sv"), Path("/proj/sub/deeper/x.sv"))
    assert fl.include_dirs == (Path("/proj/sub/inc"),)
    assert fl.defines == ("DEEP",)
    assert fl.lists == (Path("/proj/sub/cells.f"), Path("/proj/sub/deeper/more.f"))


def test_glued_dash_f_is_an_option_not_a_list() -> None:
    fl = parse_filelist("-fno-inline a.sv\n", BASE, reader({}))
    assert fl.files == (Path("/proj/a.sv"),)
    assert fl.ignored == ("-fno-inline",)


def test_environment_variables_expand() -> None:
    assert expand_env("$ROOT/a/${SUB}/$(X)/$NOPE", {"ROOT": "/r", "SUB": "s", "X": "x"}) == "/r/a/s/x/$NOPE"
    fl = parse_filelist("$IP/rtl/a.sv\n+incdir+${IP}/inc\n", BASE, reader({}), {"IP": "/ip"})
    assert fl.files == (Path("/ip/rtl/a.sv"),)
    assert fl.include_dirs == (Path("/ip/inc"),)


def test_missing_nested_list_names_it() -> None:
    with pytest.raises(DesignError, match=r"/proj/gone\.f: filelist not found"):
        parse_filelist("-f gone.f\n", BASE, reader({}))


def test_lists_including_each_other_are_an_error() -> None:
    files = {"/proj/a.f": "-f b.f\n", "/proj/b.f": "-f a.f\n"}
    with pytest.raises(DesignError, match="include each other"):
        parse_filelist(files["/proj/a.f"], BASE, reader(files), _stack=(Path("/proj/a.f"),))


def test_duplicates_are_listed_once() -> None:
    fl = parse_filelist("a.sv a.sv +incdir+i +incdir+i\n", BASE, reader({}))
    assert fl.files == (Path("/proj/a.sv"),)
    assert fl.include_dirs == (Path("/proj/i"),)


def test_read_filelist_from_disk(tmp_path: Path) -> None:
    (tmp_path / "rtl").mkdir()
    (tmp_path / "rtl" / "more.f").write_text("b.sv\n")
    (tmp_path / "files.f").write_text("a.sv\n-f rtl/more.f\n")
    fl = read_filelist(tmp_path / "files.f", env={})
    assert fl.files == (tmp_path / "a.sv", tmp_path / "rtl" / "b.sv")
    assert fl.lists == (tmp_path / "files.f", tmp_path / "rtl" / "more.f")
    with pytest.raises(DesignError, match="filelist not found"):
        read_filelist(tmp_path / "nope.f")
