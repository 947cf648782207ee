from __future__ import annotations

import pytest

from sim.sandbox.guard import check_cocotb, check_sv, strip_comments


@pytest.mark.parametrize(
    ("src", "needle"),
    [
        pytest.param('module tb; initial $system("rm -rf ~"); endmodule', "$system", id="system"),
        pytest.param('import "DPI-C" function int f();\nmodule tb; endmodule', "DPI", id="dpi-import"),
        pytest.param('module tb; export "DPI-C" function f; endmodule', "DPI", id="dpi-export"),
        pytest.param('module tb; integer f; initial f = $fopen("/tmp/x", "w"); endmodule', "/tmp/x", id="fopen-abs"),
        pytest.param('module tb; integer f; initial f = $fopen("../x.txt", "w"); endmodule', "../x.txt", id="fopen-parent"),
        pytest.param('module tb; initial $dumpfile("/dump.vcd"); endmodule', "/dump.vcd", id="dumpfile-abs"),
        pytest.param('module tb; string s; integer f; initial f = $fopen(s, "w"); endmodule', "computed", id="fopen-computed"),
        pytest.param('module tb; reg [7:0] m[4]; initial $writememh("~/m.hex", m); endmodule', "~/m.hex", id="writemem-home"),
        pytest.param('`include "/etc/passwd"\nmodule tb; endmodule', "/etc/passwd", id="include-abs"),
    ],
)
def test_hostile_sv_is_rejected(src: str, needle: str) -> None:
    violations = check_sv(src)
    assert violations, src
    assert needle in violations[0].text


@pytest.mark.parametrize(
    "src",
    [
        pytest.param('module tb; integer f; initial f = $fopen("stim.txt", "r"); endmodule', id="relative-read"),
        pytest.param('module tb; initial $dumpfile("waves.vcd"); endmodule', id="relative-dump"),
        pytest.param('module tb; // $system("x")\n /* import "DPI-C" */ endmodule', id="in-comments"),
        pytest.param('module tb; initial $display("$system is not called"); endmodule', id="in-string-display"),
    ],
)
def test_benign_sv_is_allowed(src: str) -> None:
    # A $system inside a $display string is text, not a call; only real calls count.
    assert check_sv(src) == []


def test_violation_reports_line() -> None:
    src = "module tb;\n\n  initial $system(\"ls\");\nendmodule\n"
    assert check_sv(src)[0].line == 3


def test_strip_comments_keeps_positions() -> None:
    src = 'a // c\n/* x\ny */ "s//t"'
    out = strip_comments(src)
    assert len(out) == len(src)
    assert out.count("\n") == src.count("\n")
    assert '"s//t"' in out


@pytest.mark.parametrize(
    ("src", "needle"),
    [
        pytest.param("import os\n", "os", id="os"),
        pytest.param("import subprocess\n", "subprocess", id="subprocess"),
        pytest.param("import socket\n", "socket", id="socket"),
        pytest.param("from pathlib import Path\n", "pathlib", id="pathlib"),
        pytest.param("open('/tmp/x', 'w').write('x')\n", "open", id="open"),
        pytest.param("x = ().__class__.__bases__\n", "dunder", id="dunder"),
        pytest.param("eval('1')\n", "eval", id="eval"),
        pytest.param("import cocotbext\n", "cocotbext", id="cocotbext-bare"),
        pytest.param("from cocotbext.axi.address_space import mmap\n", "address_space", id="cocotbext-submodule"),
    ],
)
def test_hostile_cocotb_is_rejected(src: str, needle: str) -> None:
    violations = check_cocotb(src)
    assert violations
    assert needle in violations[0].text


def test_plain_cocotb_test_is_allowed() -> None:
    src = (
        "import cocotb\nimport random\nfrom cocotb.triggers import Timer\n\n"
        "@cocotb.test()\nasync def t(dut):\n    dut.a.value = random.randint(0, 3)\n    await Timer(1, unit='ns')\n"
    )
    assert check_cocotb(src) == []


def test_cocotbext_axi_and_uart_are_allowed() -> None:
    # The engine's cocotb companion drives AXI and serial ports through these two packages.
    src = "from cocotbext.axi import AxiLiteBus, AxiLiteMaster\nfrom cocotbext.uart import UartSource\n"
    assert check_cocotb(src) == []
